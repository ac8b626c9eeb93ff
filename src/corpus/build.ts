import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat, truncate } from 'node:fs/promises';
import { resolve, join } from 'node:path';
import { chunkDocument, countCodePoints } from '../chunking/chunker.js';
import { loadTokenizerSpec, resolveTokenizerSpec } from '../chunking/tokenCounter.js';
import type { SectionedDocument, SizeMeasure } from '../chunking/types.js';
import { type BuildCheckpoint, type Chunk, ChunkSchema, type CorpusManifest, corpusPaths, type CorpusPaths, readCheckpoint, writeCheckpoint } from '../runFiles/corpusFiles.js';
import { DataFileError, InputError, InterruptedError } from '../errors.js';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { hashFile } from '../runFiles/buildInputs.js';
import { JsonlAppender, readJsonl } from '../io/jsonl.js';
import { createProgress, type ProgressReporter } from '../progress/progress.js';
import { VERSION } from '../version.js';
import { ChunkFingerprints } from './chunkFingerprints.js';
import { parseCorpusBuildConfig, type CorpusBuildConfig } from './config.js';
import { corpusBuildInputs } from './freshness.js';
import { corpusBuilders } from './registry.js';
import { ChunkBatchWriter } from './chunkBatch.js';
import type { BuilderItem, ChunkBatch } from './types.js';

export interface BuildCorpusOptions {
  /** Continue an interrupted build of the same config from its checkpoint. */
  resume?: boolean;
  /** Show a progress bar / progress lines on stderr. */
  progress?: boolean;
  /** Abort: the build stops after the current batch, keeping a resumable state. */
  signal?: AbortSignal;
  /** Where relative paths resolve; default the working directory. */
  baseDir?: string;
  /**
   * Chunk size measure, overriding `chunking.unit`/`tokenizer` (e.g. the embedder's own token
   * counter); the manifest then records `chunking.measure: "custom"`.
   */
  measure?: SizeMeasure;
  /** Items between checkpoints (tests use small values). */
  checkpointEvery?: number;
}

/**
 * Builds `<out>/chunks.jsonl` and `<out>/manifest.json` from a corpus build config. The build runs
 * in `<out>.partial/`, checkpointing after every batch; only a finished build is renamed to `<out>`
 * with `complete: true`, so a half-built corpus is never taken for a finished one.
 */
export async function buildCorpus(input: CorpusBuildConfig, options: BuildCorpusOptions = {}): Promise<CorpusManifest> {
  const config = parseCorpusBuildConfig(input);
  const baseDir = options.baseDir ?? process.cwd();
  const outDir = resolve(baseDir, config.out ?? join('corpora', config.name));
  const paths = corpusPaths(outDir);
  const builder = await corpusBuilders.create(config.builder, { baseDir }, 'builder');
  const measure = options.measure ?? (config.chunking.unit === 'tokens'
    ? await loadTokenizerSpec(resolveTokenizerSpec(config.chunking.tokenizer!, baseDir))
    : countCodePoints);
  const source = await builder.describeSource();
  const dedupe = config.dedupe ?? builder.dedupeByDefault ?? true;
  // Tuning params (worker counts) change how a build runs, not what it writes: a resumed build may differ in them.
  const inputs = await corpusBuildInputs(config, builder, baseDir);
  // A resumed build must read the same sources with the same settings as the interrupted one.
  const configHash = createHash('sha256').update(JSON.stringify({ out: config.out, settings: inputs.settings, files: Object.entries(inputs.files).map(([path, file]) => [path, file.sha256]) })).digest('hex');
  const fingerprints = dedupe ? new ChunkFingerprints() : undefined;
  const state = await startOrResume(paths, configHash, options.resume ?? false, fingerprints);
  const runStarted = Date.now();
  const elapsedBefore = state.elapsedSeconds;
  const elapsed = () => elapsedBefore + (Date.now() - runStarted) / 1000;

  const progress = createProgress({
    label: `corpus ${config.name}`,
    total: source.bytes ?? 0,
    unit: source.bytes ? 'bytes' : 'items',
    silent: !options.progress,
  });
  let lastBytes = 0;
  const onBytes = (bytes: number) => {
    state.sourceBytesRead = bytes;
    if (!source.bytes) return;
    progress.tick(bytes - lastBytes, { pages: state.itemsConsumed, chunks: state.chunksWritten });
    lastBytes = bytes;
  };
  const run = {
    startAt: state.itemsConsumed,
    signal: options.signal,
    onBytes,
    count: (counter: string, delta = 1) => {
      state.builderCounts[counter] = (state.builderCounts[counter] ?? 0) + delta;
    },
  };
  const chunking = { ...config.chunking, ...(config.chunking.tokenizer ? { tokenizer: resolveTokenizerSpec(config.chunking.tokenizer, baseDir) } : {}) };
  // The builder's own chunking threads where it has them; a caller's measure (a function) cannot go there.
  const batches =
    builder.chunkBatches && !options.measure
      ? builder.chunkBatches({ ...run, corpus: config.name, chunking })
      : chunkItems(builder.items(run), (document) => chunkDocument(document, { ...config.chunking, corpus: config.name, measure }));
  await writeBatches(batches, { paths, state, fingerprints, progress, elapsed, countsBytes: !!source.bytes, signal: options.signal, checkpointEvery: options.checkpointEvery ?? 2000 });
  if (options.signal?.aborted) {
    throw new InterruptedError(`corpus build interrupted after ${state.itemsConsumed} source records; rerun with --resume to continue (state in ${paths.partial})`);
  }
  if (state.chunksWritten === 0) {
    // An empty corpus is never a result: say what was read and why nothing was kept.
    const skipped = Object.entries(state.documentsSkipped).map(([reason, n]) => `${n} ${reason}`).join(', ');
    throw new DataFileError(
      `corpus ${config.name}: ${state.documentsRead} source records read from ${source.path} but no text to chunk` +
        (skipped ? ` (skipped: ${skipped})` : state.documentsRead === 0 ? ' (the source holds no records)' : '') +
        '; check the input and the builder settings',
    );
  }

  const manifest: CorpusManifest = {
    name: config.name,
    builder: config.builder.name,
    complete: true,
    source: source.bytes === undefined ? { path: source.path } : { path: source.path, bytes: source.bytes },
    parameters: { builder: config.builder, chunking: options.measure ? { ...config.chunking, measure: 'custom' } : config.chunking, dedupe },
    counts: {
      documentsRead: state.documentsRead,
      documentsSkipped: state.documentsSkipped,
      documentsChunked: state.documentsRead - Object.values(state.documentsSkipped).reduce((a, b) => a + b, 0),
      chunksWritten: state.chunksWritten,
      duplicateChunksDropped: state.duplicateChunksDropped,
      ...state.builderCounts,
    },
    ...(state.duplicates?.length ? { duplicateOf: await duplicateMap(paths.partialChunks, state.duplicates) } : {}),
    contentHash: await hashFile(paths.partialChunks),
    documentsHash: await hashFile(paths.partialDocuments),
    inputs,
    toolVersion: `hisrag ${VERSION}`,
    timings: {
      startedAt: state.startedAt,
      finishedAt: new Date().toISOString(),
      seconds: Number((state.elapsedSeconds = elapsed()).toFixed(3)),
      runs: state.runs,
    },
    ...builder.manifestFields?.(),
  };
  await atomicWriteJson(paths.partialManifest, manifest);
  await rm(paths.checkpoint, { force: true });
  await swapIntoPlace(paths.partial, outDir);
  return manifest;
}

/**
 * The build state to continue from: a fresh one in an emptied `<out>.partial/`, or with `resume` the
 * checkpoint's, its files cut back to it and its kept chunk texts remembered in `fingerprints`.
 */
async function startOrResume(paths: CorpusPaths, configHash: string, resume: boolean, fingerprints: ChunkFingerprints | undefined): Promise<BuildCheckpoint> {
  const checkpoint = resume ? await readCheckpoint(paths.checkpoint) : undefined;
  if (!checkpoint) {
    // Starting over would throw away an interrupted build's work: say so, as `index build` does (a damaged checkpoint is named, not taken for none).
    const interrupted = resume ? undefined : await readCheckpoint(paths.checkpoint);
    if (interrupted && interrupted.itemsConsumed > 0) {
      throw new InputError(
        `${paths.partial} holds an interrupted build (${interrupted.itemsConsumed} source records, ${interrupted.chunksWritten} chunks done); ` +
          `continue it with --resume, or delete that folder to start over`,
      );
    }
    await rm(paths.partial, { recursive: true, force: true });
    await mkdir(paths.partial, { recursive: true });
    return { configHash, itemsConsumed: 0, sourceBytesRead: 0, chunksBytes: 0, documentsBytes: 0, chunksWritten: 0, documentsRead: 0,
      documentsSkipped: {}, duplicateChunksDropped: 0, builderCounts: {}, elapsedSeconds: 0, runs: 1, startedAt: new Date().toISOString() };
  }
  if (checkpoint.documentsBytes === undefined) {
    throw new InputError(`${paths.partial}: the interrupted build was started by an earlier hisrag, which kept no documents.jsonl; run without --resume to start over`);
  }
  if (checkpoint.configHash !== configHash) {
    throw new InputError(`${paths.partial}: the interrupted build used a different config or other source files; run without --resume to start over`);
  }
  // Drop whatever was appended after the last checkpoint, then remember the kept chunk texts.
  await truncate(paths.partialChunks, checkpoint.chunksBytes);
  await truncate(paths.partialDocuments, checkpoint.documentsBytes);
  let ordinal = 0;
  if (fingerprints) for await (const chunk of readJsonl(paths.partialChunks, ChunkSchema)) fingerprints.add(chunk.text, ordinal++);
  return { ...checkpoint, runs: checkpoint.runs + 1 };
}

/** `state` is updated in place and written as the checkpoint; `fingerprints` is undefined when dedupe is off; `countsBytes`: progress counts source bytes, not items. */
interface BatchWriting { paths: CorpusPaths; state: BuildCheckpoint; fingerprints: ChunkFingerprints | undefined; progress: ProgressReporter; elapsed: () => number; countsBytes: boolean; signal: AbortSignal | undefined; checkpointEvery: number }

/**
 * Appends each batch's new chunk lines and its documents to the partial files, checkpointing every
 * `checkpointEvery` items or 5 s and once at the end (on an interruption too), so a resume starts
 * right after what was kept.
 */
async function writeBatches(batches: AsyncIterable<ChunkBatch>, { paths, state, fingerprints, progress, elapsed, countsBytes, signal, checkpointEvery }: BatchWriting): Promise<void> {
  const appender = await JsonlAppender.open(paths.partialChunks);
  const documentAppender = await JsonlAppender.open(paths.partialDocuments);
  let pending: Uint8Array[] = [];
  let pendingDocuments: Uint8Array[] = [];
  let pendingChunks = 0;
  let itemsSinceCheckpoint = 0;
  let lastCheckpointAt = Date.now();
  const commitBatch = async () => {
    await appender.appendBytes(pending);
    await documentAppender.appendBytes(pendingDocuments);
    state.chunksBytes = (await stat(paths.partialChunks)).size;
    state.documentsBytes = (await stat(paths.partialDocuments)).size;
    pendingDocuments = [];
    state.chunksWritten += pendingChunks;
    pending = [];
    pendingChunks = 0;
    state.elapsedSeconds = elapsed();
    await writeCheckpoint(paths.checkpoint, state);
    itemsSinceCheckpoint = 0;
    lastCheckpointAt = Date.now();
  };
  try {
    for await (const batch of batches) {
      state.itemsConsumed += batch.items;
      itemsSinceCheckpoint += batch.items;
      state.documentsRead += batch.items;
      for (const [reason, n] of Object.entries(batch.skipped)) state.documentsSkipped[reason] = (state.documentsSkipped[reason] ?? 0) + n;
      // Keeps the batch's lines whose chunk text is new: whole runs of lines, no decoding.
      const { pieces, kept, duplicates } = newLines(batch, fingerprints, state.chunksWritten + pendingChunks);
      pending.push(...pieces);
      pendingChunks += kept;
      state.duplicateChunksDropped += duplicates.length;
      if (duplicates.length > 0) (state.duplicates ??= []).push(...duplicates);
      if (batch.documents.length > 0) pendingDocuments.push(batch.documents);
      if (!countsBytes) progress.tick(batch.items, { chunks: state.chunksWritten + pendingChunks });
      else if (Math.floor(state.itemsConsumed / 500) !== Math.floor((state.itemsConsumed - batch.items) / 500)) {
        progress.tick(0, { pages: state.itemsConsumed, chunks: state.chunksWritten + pendingChunks });
      }
      if (itemsSinceCheckpoint >= checkpointEvery || Date.now() - lastCheckpointAt > 5000) await commitBatch();
      if (signal?.aborted) break;
    }
    await commitBatch();
  } finally {
    await appender.close();
    await documentAppender.close();
    progress.tick(0, { pages: state.itemsConsumed, chunks: state.chunksWritten });
    progress.stop();
  }
}

/** Items chunked in this thread, one batch per item (the path for builders without chunkBatches). */
async function* chunkItems(items: AsyncIterable<BuilderItem>, chunk: (document: SectionedDocument) => Chunk[]): AsyncGenerator<ChunkBatch> {
  for await (const item of items) {
    const batch = new ChunkBatchWriter();
    batch.add(item, () => (item.kind === 'document' ? chunk(item.document) : []));
    yield batch.finish();
  }
}

/** Replaces `target` by `next` with renames, so readers see the old or the new corpus, never a mix. */
async function swapIntoPlace(next: string, target: string): Promise<void> {
  if (existsSync(target)) {
    const old = `${target}.old-${process.pid}`;
    await rename(target, old);
    await rename(next, target);
    await rm(old, { recursive: true, force: true });
  } else {
    await rename(next, target);
  }
}

/** The id of one chunks.jsonl line. */
function lineId(line: Uint8Array): string {
  return String((JSON.parse(Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8')) as { id: unknown }).id);
}

/** Dropped duplicate id → the id of the chunk kept for its text, the kept ones found by their line in `chunksFile`. */
async function duplicateMap(chunksFile: string, duplicates: [string, number][]): Promise<Record<string, string>> {
  const wanted = new Set(duplicates.map(([, line]) => line));
  const idAt = new Map<number, string>();
  let line = 0;
  for await (const chunk of readJsonl(chunksFile, ChunkSchema)) {
    if (wanted.has(line)) idAt.set(line, chunk.id);
    line++;
  }
  return Object.fromEntries(duplicates.map(([id, kept]) => [id, idAt.get(kept)!]));
}

/**
 * A batch's lines whose chunk text is new (whole runs of lines, no decoding), the first getting line
 * `firstOrdinal` of chunks.jsonl; each dropped line is decoded for its id alone, paired with the line
 * of the chunk kept for its text. Without `fingerprints` (dedupe off) every line is kept.
 */
function newLines(batch: ChunkBatch, fingerprints: ChunkFingerprints | undefined, firstOrdinal: number): { pieces: Uint8Array[]; kept: number; duplicates: [string, number][] } {
  const pieces: Uint8Array[] = [];
  const duplicates: [string, number][] = [];
  let runStart = 0;
  let nextOrdinal = firstOrdinal;
  for (let i = 0; i < batch.lineEnds.length; i++) {
    const kept = fingerprints?.keptOrdinal(batch.fingerprints[2 * i]!, batch.fingerprints[2 * i + 1]!, nextOrdinal);
    if (kept === undefined) {
      nextOrdinal++;
      continue;
    }
    const lineStart = i === 0 ? 0 : batch.lineEnds[i - 1]!;
    duplicates.push([lineId(batch.lines.subarray(lineStart, batch.lineEnds[i]!)), kept]);
    if (lineStart > runStart) pieces.push(batch.lines.subarray(runStart, lineStart));
    runStart = batch.lineEnds[i]!;
  }
  if (batch.lines.length > runStart) pieces.push(batch.lines.subarray(runStart));
  return { pieces, kept: nextOrdinal - firstOrdinal, duplicates };
}
