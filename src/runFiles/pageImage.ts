import { z } from 'zod';

/**
 * A page scan referenced where it lies (never copied); whoever sends it to a model prepares it. Declared
 * once here: prompts, records, corpora and the viewer all carry it.
 */
export const PageImageRefSchema = z.object({
  imageDir: z.string().min(1).describe('Absolute path of the image folder the path is relative to (the benchmark\'s or corpus\'s `imageDir`)'),
  path: z.string().min(1).describe('Path inside `imageDir`, `/`-separated: `<doc_id>/page_<n>.jpg`'),
  docId: z.string(),
  page: z.number().int().positive().describe('One-based page number'),
  width: z.number().int().positive().describe('Pixel size and file size of the original scan'),
  height: z.number().int().positive(),
  bytes: z.number().int().nonnegative(),
});
export type PageImageRef = z.infer<typeof PageImageRefSchema>;

/** A message as run records and traces keep it: its text (images as placeholders) and the images it showed, by reference. */
export const RecordedMessageSchema = z.object({
  role: z.string(),
  content: z.string(),
  images: z.array(PageImageRefSchema).optional(),
});
export type RecordedMessage = z.infer<typeof RecordedMessageSchema>;

