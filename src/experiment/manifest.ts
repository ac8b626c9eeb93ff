import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { ExperimentConfig } from '../config/experiment.js';
import { corpusManifestIfAny } from '../runFiles/corpusFiles.js';
import { readIndexManifest } from '../runFiles/indexManifest.js';
import { CHUNK_SPAN_FORMAT } from '../chunking/chunker.js';
import { MANIFEST_VERSION, type RunManifest, type StoredRunManifest } from '../runFiles/manifest.js';
import { VERSION } from '../version.js';
import { redactSecrets } from './redact.js';
import type { Stages } from './stages.js';
import type { BenchmarkDescription } from '../benchmarks/types.js';
import type { RetrieverDescription } from '../retrieval/types.js';

/** sha256 of `<index>/manifest.json` for every retriever that names an index directory. */
function indexManifestHashes(retrievers: Record<string, RetrieverDescription>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [label, described] of Object.entries(retrievers)) {
    if (!described.index) continue;
    const file = join(described.index, 'manifest.json');
    if (existsSync(file)) out[label] = `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
  }
  return out;
}

/** The index folders a described retriever reads: its own, else its first fused child's. */
function indexOf(described: RetrieverDescription): string | undefined {
  return described.index ?? described.retrievers?.map(indexOf).find(Boolean);
}

/** A corpus's `parameters.chunking`: builder parameters are free-form, so one without it records none. */
const ChunkingRecordSchema = z.record(z.string(), z.unknown());

/** The corpus (and its chunking settings, from its manifest) each retriever's index was built from, by retriever label (a fused retriever: its first child's). */
function retrieverChunkings(retrievers: Record<string, RetrieverDescription>): NonNullable<RunManifest['chunkings']> {
  const out: NonNullable<RunManifest['chunkings']> = {};
  for (const [label, described] of Object.entries(retrievers)) {
    const index = indexOf(described);
    const corpus = index ? readIndexManifest(index)?.corpus : undefined;
    if (!corpus) continue;
    const chunking = ChunkingRecordSchema.safeParse(corpusManifestIfAny(corpus.dir)?.parameters.chunking);
    if (chunking.success) out[label] = { corpus: corpus.name, dir: corpus.dir, chunking: chunking.data };
  }
  return out;
}

/** Every benchmark's `imageDir` (absolute, as its describe() gives it), each once. */
export function imageDirsOf(benchmarks: BenchmarkDescription[]): string[] {
  return [...new Set(benchmarks.flatMap((b) => (b.imageDir ? [b.imageDir] : [])))];
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return null;
  }
}

/** manifest.json: what produced this run — versions, commit, components, data hashes, times. */
export async function buildRunManifest(input: {
  config: ExperimentConfig;
  configFile?: string;
  runDir: string;
  stages: Stages;
  startedAt: string;
  conditions: string[];
  previous?: StoredRunManifest;
}): Promise<RunManifest> {
  const { config, stages } = input;
  const components = stages.describe();
  const sessions = input.previous?.sessions ?? [];
  return redactSecrets({
    version: MANIFEST_VERSION,
    runId: basename(input.runDir),
    experiment: config.name,
    hisragVersion: VERSION,
    gitCommit: gitCommit(),
    node: process.version,
    configFile: input.configFile ?? input.previous?.configFile ?? null,
    startedAt: input.previous?.startedAt ?? input.startedAt,
    finishedAt: null,
    // Each invocation (first run and every resume) is listed, so interruptions are visible.
    sessions: [...sessions, { startedAt: input.startedAt, pid: process.pid }],
    models: stages.models.map((m) => m.label),
    conditions: input.conditions,
    components,
    indexManifests: indexManifestHashes(components.retrievers),
    benchmarks: stages.benchmarkDescriptions,
    chunkings: retrieverChunkings(components.retrievers),
    spanFormat: CHUNK_SPAN_FORMAT,
    // The image folders the run's prompts may show pages from (absolute): the only folders the viewer serves images from.
    imageDirs: imageDirsOf(stages.benchmarkDescriptions),
    complete: false,
  });
}
