import { z } from 'zod';
import type { ChunkingOptions, SectionedDocument } from '../chunking/types.js';

/** What a builder yields: a document, or a source record it skipped (counted per reason in the manifest). */
export type BuilderItem =
  | { kind: 'document'; document: SectionedDocument }
  | { kind: 'skipped'; reason: string; docId?: string };

export interface BuilderRun {
  /** Resume: the first `startAt` items were consumed by an earlier run; skip them cheaply. */
  startAt: number;
  signal?: AbortSignal;
  /** Reports the absolute number of source bytes read so far (progress). */
  onBytes?(bytesRead: number): void;
  /** Adds to a builder-specific counter reported in `manifest.counts` (e.g. `emptyPages`). */
  count?(counter: string, delta?: number): void;
}

/**
 * Finished chunks of a run of source records, in the form they travel between threads: the
 * `chunks.jsonl` lines as UTF-8 bytes plus a 64-bit fingerprint per chunk, so that the writing
 * thread deduplicates and writes without decoding a chunk (all three buffers are transferable).
 */
export const ChunkBatchSchema = z
  .object({
    /** Source records consumed (documents and skipped records). */
    items: z.number().int().nonnegative(),
    /** Skipped records by reason. */
    skipped: z.record(z.string(), z.number().int().nonnegative()),
    /** One JSON chunk a line, each line ending in `\n`. */
    lines: z.instanceof(Uint8Array),
    /** Byte offset where each line ends (after its `\n`). */
    lineEnds: z.instanceof(Uint32Array),
    /** Two words (hi, lo) per chunk, as ChunkFingerprints takes them. */
    fingerprints: z.instanceof(Uint32Array),
    /** The batch's documents as `documents.jsonl` lines (`CorpusDocument`): the texts chunk spans point into. */
    documents: z.instanceof(Uint8Array),
  })
  // Checked once per batch arriving from a worker thread, not per chunk.
  .refine((b) => b.fingerprints.length === 2 * b.lineEnds.length, 'one fingerprint per line')
  .refine((b) => b.lineEnds.length === 0 || b.lineEnds[b.lineEnds.length - 1] === b.lines.length, 'line ends cover the lines');
export type ChunkBatch = z.infer<typeof ChunkBatchSchema>;

/** A builder run that also chunks: corpus name (chunk ids) and chunking settings (tokenizer path resolved). */
export interface ChunkingRun extends BuilderRun {
  corpus: string;
  chunking: ChunkingOptions;
}

/**
 * A corpus builder turns one source (dump, API, OCR folder, JSON file) into items in a
 * deterministic order, so that a resumed build can skip the first n items it already consumed.
 */
export interface CorpusBuilder {
  /** Local files (or folders) whose content the corpus is made from: hashed into the manifest, and a change rebuilds the corpus. None for a remote source. */
  inputFiles?(): Promise<string[]>;
  /** Source path (or URL) and size for the manifest and the progress bar. */
  describeSource(): Promise<{ path: string; bytes?: number }>;
  items(run: BuilderRun): AsyncIterable<BuilderItem>;
  /**
   * Optional: the builder chunks where it parses (worker threads) and yields finished batches in
   * source order, so that the runner only deduplicates by fingerprint and writes. The runner uses
   * it unless the caller brings its own size measure (a function cannot cross threads); output
   * must equal that of `items` chunked by the runner.
   */
  chunkBatches?(run: ChunkingRun): AsyncIterable<ChunkBatch>;
  /** Params that change how fast a build runs, not what it writes (worker counts): left out of the resume check. */
  tuningParams?: readonly string[];
  /** Default for the config's `dedupe` (false where each document is an evidence unit, e.g. OCR pages). */
  dedupeByDefault?: boolean;
  /** Top-level fields the builder adds to the manifest (`imageDir`: the folder page chunks' `meta.image` paths are relative to). */
  manifestFields?(): Record<string, unknown>;
}

/** What builders receive from the runner: where relative paths in their params are resolved. */
export interface BuilderContext {
  baseDir: string;
}
