import { z } from 'zod';

/** What a corpus builder yields before chunking: one document (article, OCR page, poem ...). */
export interface SourceDocument {
  /** The document chunks belong to (retrieval scopes by it: for LongHisDoc, the book). */
  docId: string;
  /**
   * Key in chunk ids (`<corpus>:<idKey>:<n>`) when several source documents share one docId —
   * LongHisDoc's pages of one book; defaults to docId.
   */
  idKey?: string;
  title: string;
  /** Plain text; paragraphs separated by blank lines. Section headings may be kept inline. */
  text: string;
  meta: Record<string, unknown>;
}

/** `corpora/<name>/manifest.json`. */
export const CorpusManifestSchema = z.object({
  name: z.string(),
  builder: z.string(),
  complete: z.boolean(),
  source: z.object({ path: z.string(), bytes: z.number().nonnegative().optional() }),
  parameters: z.record(z.string(), z.unknown()),
  counts: z.object({
    documentsRead: z.number().int().nonnegative(),
    documentsSkipped: z.record(z.string(), z.number().int().nonnegative()),
    chunksWritten: z.number().int().nonnegative(),
    duplicateChunksDropped: z.number().int().nonnegative(),
  }).catchall(z.unknown()),
  /** sha256 over chunks.jsonl. */
  contentHash: z.string(),
  toolVersion: z.string(),
  timings: z.record(z.string(), z.unknown()),
}).catchall(z.unknown());
export type CorpusManifest = z.infer<typeof CorpusManifestSchema>;

/** One titled part of a document; chunks never span two sections. */
export interface DocumentSection {
  /** Heading path from the top (e.g. ['生平', '仕途']); empty for the lead section. */
  headings: string[];
  text: string;
}

/** A source document whose text comes in sections (Wikipedia articles); `text` then joins them. */
export interface SectionedDocument extends SourceDocument {
  sections?: DocumentSection[];
}

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
 * A corpus builder turns one source (dump, API, OCR folder, JSON file) into items in a
 * deterministic order, so that a resumed build can skip the first n items it already consumed.
 */
export interface CorpusBuilder {
  /** Source path (or URL) and size for the manifest and the progress bar. */
  describeSource(): Promise<{ path: string; bytes?: number }>;
  items(run: BuilderRun): AsyncIterable<BuilderItem>;
  /** Default for the config's `dedupe` (false where each document is an evidence unit, e.g. OCR pages). */
  dedupeByDefault?: boolean;
}

/** What builders receive from the runner: where relative paths in their params are resolved. */
export interface BuilderContext {
  baseDir: string;
}
