import { z } from 'zod';

/** One retrievable passage; the line format of `corpora/<name>/chunks.jsonl`. */
export const ChunkSchema = z.object({
  /** Deterministic: `<corpus>:<docId>:<n>`. */
  id: z.string().min(1),
  docId: z.string().min(1),
  title: z.string(),
  text: z.string(),
  /** Builder-specific: url, pageId, section, page (one-based, LongHisDoc), book_name, ... */
  meta: z.record(z.string(), z.unknown()),
});
export type Chunk = z.infer<typeof ChunkSchema>;
