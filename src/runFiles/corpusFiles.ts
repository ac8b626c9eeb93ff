import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DataFileError } from '../errors.js';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { BuildInputsSchema } from './buildInputs.js';
import { readJsonFile } from '../io/jsonText.js';
import { readJsonl } from '../io/jsonl.js';

// The files of a corpus directory (`hisrag corpus build`): chunks.jsonl, documents.jsonl,
// manifest.json, and the build's checkpoint.json while it runs in `<dir>.partial/`.

/** Files of a corpus directory; a build runs in `<dir>.partial/` and is renamed into place at the end. */
export function corpusPaths(dir: string) {
  const partial = `${dir}.partial`;
  return {
    dir,
    chunks: join(dir, 'chunks.jsonl'),
    documents: join(dir, 'documents.jsonl'),
    manifest: join(dir, 'manifest.json'),
    partial,
    partialChunks: join(partial, 'chunks.jsonl'),
    partialDocuments: join(partial, 'documents.jsonl'),
    partialManifest: join(partial, 'manifest.json'),
    checkpoint: join(partial, 'checkpoint.json'),
  };
}
export type CorpusPaths = ReturnType<typeof corpusPaths>;

/** One retrievable passage; the line format of `corpora/<name>/chunks.jsonl`. */
export const ChunkSchema = z.object({
  id: z.string().min(1).describe('Deterministic: `<corpus>:<docId>:<n>`'),
  docId: z.string().min(1),
  title: z.string(),
  text: z.string(),
  meta: z.record(z.string(), z.unknown()).describe('Builder-specific: url, pageId, section, page (one-based, LongHisDoc), book_name, ..; `spans`: where the chunk is in its document\'s text ([{doc, start, end}], code points, the whitespace after the chunk included)'),
});
export type Chunk = z.infer<typeof ChunkSchema>;

/** `meta.image` of a page chunk, as the longhisdoc-ocr builder writes it (the file stays in the corpus's image folder). */
export const ChunkImageSchema = z.object({
  path: z.string().min(1),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  bytes: z.number().int().nonnegative(),
});

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
  contentHash: z.string().describe('sha256 over chunks.jsonl'),
  documentsHash: z.string().optional().describe('sha256 over documents.jsonl (the texts chunk spans point into); absent in corpora built before it was written'),
  toolVersion: z.string(),
  timings: z.record(z.string(), z.unknown()),
  /** What the corpus was built from (source files' hashes, builder and chunking settings); absent in corpora built before it was recorded. */
  inputs: BuildInputsSchema.optional(),
  duplicateOf: z.record(z.string(), z.string()).optional().describe('Each exact-duplicate chunk dropped (its id) → the id of the chunk kept with the same text; a gold id naming a dropped one counts its kept twin. Absent when none was dropped (or in corpora built before it was recorded)'),
  imageDir: z.string().optional().describe('Absolute image folder the chunks\' `meta.image.path` / `meta.images[].path` are relative to (page-image corpora)'),
}).catchall(z.unknown());
export type CorpusManifest = z.infer<typeof CorpusManifestSchema>;

/**
 * One line of `corpora/<name>/documents.jsonl`: a document's text as the chunker read it, the text
 * chunk spans (`meta.spans`) and gold evidence spans are character ranges of. A page window's pages
 * are documents of their own; a document in several windows has several (equal) lines.
 */
export const CorpusDocumentSchema = z.object({
  /** The source document's `idKey`, else its docId (a LongHisDoc page: `<doc_id>-p<page>`). */
  doc: z.string().min(1),
  docId: z.string(),
  title: z.string().optional(),
  text: z.string(),
});
export type CorpusDocument = z.infer<typeof CorpusDocumentSchema>;

/**
 * Where an interrupted build stopped: written atomically after each batch of chunks is appended
 * and fsynced, so `chunks.jsonl` is never shorter than `chunksBytes` says.
 */
export const BuildCheckpointSchema = z.object({
  configHash: z.string(),
  itemsConsumed: z.number().int().nonnegative(),
  sourceBytesRead: z.number().int().nonnegative().default(0).describe('Source bytes read when the checkpoint was written (compressed bytes for .bz2); informative'),
  chunksBytes: z.number().int().nonnegative(),
  /** Bytes of `documents.jsonl` at the checkpoint (absent in checkpoints of builds from before it was written: those start over). */
  documentsBytes: z.number().int().nonnegative().optional(),
  chunksWritten: z.number().int().nonnegative(),
  documentsRead: z.number().int().nonnegative(),
  documentsSkipped: z.record(z.string(), z.number().int().nonnegative()),
  duplicateChunksDropped: z.number().int().nonnegative(),
  /** Each dropped duplicate's id and the line (in chunks.jsonl) of the chunk kept for its text; absent in checkpoints from before. */
  duplicates: z.array(z.tuple([z.string(), z.number().int().nonnegative()])).optional(),
  builderCounts: z.record(z.string(), z.number()),
  elapsedSeconds: z.number().nonnegative(),
  runs: z.number().int().positive(),
  startedAt: z.string(),
});
export type BuildCheckpoint = z.infer<typeof BuildCheckpointSchema>;

/** A damaged checkpoint is refused naming file and field, never taken for a build not yet started. */
export async function readCheckpoint(path: string): Promise<BuildCheckpoint | undefined> {
  return readJsonFile(path, BuildCheckpointSchema, '; delete it to start over');
}

export async function writeCheckpoint(path: string, checkpoint: BuildCheckpoint): Promise<void> {
  await atomicWriteJson(path, checkpoint);
}

/** `<dir>/manifest.json` as it is, finished or not; `undefined` when there is none (a damaged one is a DataFileError). */
export function corpusManifestIfAny(corpusDir: string): CorpusManifest | undefined {
  return readJsonFile(corpusPaths(corpusDir).manifest, CorpusManifestSchema);
}

/** Reads `<dir>/manifest.json`; refuses a corpus whose build has not finished. */
export async function readCorpusManifest(corpusDir: string): Promise<CorpusManifest> {
  const paths = corpusPaths(corpusDir);
  const manifest = corpusManifestIfAny(corpusDir);
  if (!manifest && existsSync(paths.partial)) {
    throw new DataFileError(
      `${corpusDir}: the corpus is incomplete — its build was interrupted or failed (state in ${paths.partial}); rerun \`hisrag corpus build\` with --resume`,
    );
  }
  if (!manifest) throw new DataFileError(`${paths.manifest}: not found — ${corpusDir} is not a built corpus (run \`hisrag corpus build\`)`);
  if (!manifest.complete) {
    throw new DataFileError(`${paths.manifest}: the corpus is incomplete (complete: false); rebuild it with \`hisrag corpus build\``);
  }
  return manifest;
}

/** Streams the chunks of a finished corpus, each validated; errors name file and line. */
export async function* readChunks(corpusDir: string): AsyncGenerator<Chunk> {
  await readCorpusManifest(corpusDir);
  yield* readJsonl(corpusPaths(corpusDir).chunks, ChunkSchema);
}

/**
 * Streams the documents of a finished corpus (`documents.jsonl`: the texts chunk spans point into);
 * a corpus built before documents were kept has none: rebuild it.
 */
export async function* readCorpusDocuments(corpusDir: string): AsyncGenerator<CorpusDocument> {
  await readCorpusManifest(corpusDir);
  const file = corpusPaths(corpusDir).documents;
  if (!existsSync(file)) throw new DataFileError(`${file}: not found — ${corpusDir} was built before corpora kept their documents' texts; rebuild it (\`hisrag corpus build\`)`);
  yield* readJsonl(file, CorpusDocumentSchema);
}
