import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ExperimentConfig } from '../config/experiment.js';
import { CHUNK_SPAN_FORMAT } from '../chunking/chunker.js';
import { MANIFEST_VERSION, type RunManifest, type StoredRunManifest } from '../runFiles/manifest.js';
import { VERSION } from '../version.js';
import { redactSecrets } from './redact.js';
import type { Stages } from './stages.js';

/** sha256 of `<index>/manifest.json` for every retriever that names an index directory. */
function indexManifestHashes(components: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const retrievers = (components.retrievers ?? {}) as Record<string, { index?: unknown }>;
  for (const [label, described] of Object.entries(retrievers)) {
    if (typeof described?.index !== 'string') continue;
    const file = join(described.index, 'manifest.json');
    if (existsSync(file)) out[label] = `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
  }
  return out;
}

type DescribedRetriever = { index?: unknown; retrievers?: unknown };

/** The index folders a described retriever reads: its own, else its first fused child's. */
function indexOf(described: DescribedRetriever | undefined): string | undefined {
  if (typeof described?.index === 'string') return described.index;
  return described && Array.isArray(described.retrievers) ? described.retrievers.map((child) => indexOf(child as DescribedRetriever)).find(Boolean) : undefined;
}

/** The corpus (and its chunking settings, from its manifest) each retriever's index was built from, by retriever label (a fused retriever: its first child's). */
function retrieverChunkings(components: Record<string, unknown>): NonNullable<RunManifest['chunkings']> {
  const out: NonNullable<RunManifest['chunkings']> = {};
  const retrievers = (components.retrievers ?? {}) as Record<string, DescribedRetriever>;
  for (const [label, described] of Object.entries(retrievers)) {
    const index = indexOf(described);
    if (!index) continue;
    const corpus = readJson(join(index, 'manifest.json'))?.corpus as { dir?: unknown; name?: unknown } | undefined;
    if (typeof corpus?.dir !== 'string' || typeof corpus.name !== 'string') continue;
    const chunking = (readJson(join(corpus.dir, 'manifest.json'))?.parameters as { chunking?: unknown } | undefined)?.chunking;
    if (chunking && typeof chunking === 'object') out[label] = { corpus: corpus.name, dir: corpus.dir, chunking: chunking as Record<string, unknown> };
  }
  return out;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Every benchmark's `imageDir` (absolute, as its describe() gives it), each once. */
export function imageDirsOf(benchmarks: Record<string, unknown>[]): string[] {
  return [...new Set(benchmarks.flatMap((b) => (typeof b.imageDir === 'string' ? [b.imageDir] : [])))];
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
    indexManifests: indexManifestHashes(components),
    benchmarks: stages.benchmarkDescriptions,
    chunkings: retrieverChunkings(components),
    spanFormat: CHUNK_SPAN_FORMAT,
    // The image folders the run's prompts may show pages from (absolute): the only folders the viewer serves images from.
    imageDirs: imageDirsOf(stages.benchmarkDescriptions),
    complete: false,
  });
}
