import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CHUNK_SPAN_FORMAT } from '../chunking/chunker.js';
import { describeInputChanges, fingerprintFiles, type BuildInputs } from '../runFiles/buildInputs.js';
import { parseCorpusBuildConfig, type ParsedCorpusBuildConfig } from './config.js';
import { corpusPaths, readCorpusManifest } from '../runFiles/corpusFiles.js';
import { corpusBuilders } from './registry.js';
import type { CorpusBuilder } from './types.js';

/**
 * What a corpus is built from: its builder's source files (and the tokenizer's, for token chunking)
 * by content hash, and every setting that changes the chunks — builder params (less its tuning
 * params: worker counts), chunking, dedupe, name (chunk ids). Files whose size and mtime match
 * `previous` keep their recorded hash.
 */
export async function corpusBuildInputs(
  config: ParsedCorpusBuildConfig,
  builder: CorpusBuilder,
  baseDir: string,
  previous?: BuildInputs['files'],
): Promise<BuildInputs> {
  const builderSpec: Record<string, unknown> = { ...config.builder };
  for (const key of builder.tuningParams ?? []) delete builderSpec[key];
  const tokenizer = config.chunking.unit === 'tokens' && config.chunking.tokenizer ? resolve(baseDir, config.chunking.tokenizer) : undefined;
  const paths = [...((await builder.inputFiles?.()) ?? []), ...(tokenizer ? [join(tokenizer, 'tokenizer.json'), join(tokenizer, 'tokenizer_config.json')] : [])];
  return {
    files: await fingerprintFiles(paths, previous),
    // spanFormat: a corpus whose chunk spans meant something else (chunking/chunker.ts) reads as stale.
    settings: { name: config.name, builder: builderSpec, chunking: config.chunking, dedupe: config.dedupe ?? builder.dedupeByDefault ?? true, spanFormat: CHUNK_SPAN_FORMAT },
  };
}

/** A corpus of a config against its directory: `reasons` says why it must be (re)built; empty when it is current. */
export interface CorpusFreshness {
  name: string;
  out: string;
  status: 'current' | 'missing' | 'interrupted' | 'stale';
  reasons: string[];
}

/** Compares a corpus build config with the corpus built in its `out` folder (nothing is built). */
export async function checkCorpusFreshness(raw: unknown, path: string, baseDir = process.cwd()): Promise<CorpusFreshness> {
  const config = parseCorpusBuildConfig(raw, path);
  const out = resolve(baseDir, config.out ?? join('corpora', config.name));
  const paths = corpusPaths(out);
  const base = { name: config.name, out };
  if (!existsSync(paths.manifest)) {
    return existsSync(paths.partial)
      ? { ...base, status: 'interrupted', reasons: ['an interrupted build is there; resuming it'] }
      : { ...base, status: 'missing', reasons: ['not built yet'] };
  }
  const manifest = await readCorpusManifest(out);
  const builder = await corpusBuilders.create(config.builder, { baseDir }, `${path}.builder`);
  const reasons = describeInputChanges(manifest.inputs, await corpusBuildInputs(config, builder, baseDir, manifest.inputs?.files), baseDir);
  return { ...base, status: reasons.length ? 'stale' : 'current', reasons };
}
