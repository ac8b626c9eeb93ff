import { z } from 'zod';

/** What a corpus builder yields before chunking: one document (article, OCR page, poem ...). */
export interface SourceDocument {
  docId: string;
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
