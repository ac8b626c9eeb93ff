import { z } from 'zod';
import { chunkDocument, countCodePoints } from '../../chunking/chunker.js';
import { ChunkingOptionsSchema, type SizeMeasure } from '../../chunking/types.js';
import { ChunkBatchWriter } from '../chunkBatch.js';
import type { ChunkBatch } from '../types.js';
import { DumpXmlReader } from './dumpXml.js';
import { createPageItems, PageItemSettingsSchema } from './pageItem.js';

/** Everything a chunk worker needs; plain data, sent once as workerData. */
export const PageChunkerSettingsSchema = z.object({
  file: z.string().describe('The dump\'s path, for messages'),
  page: PageItemSettingsSchema,
  corpus: z.string(),
  chunking: ChunkingOptionsSchema,
});
export type PageChunkerSettings = z.input<typeof PageChunkerSettingsSchema>;

/** Turns a run of whole `<page>` elements (UTF-8 bytes) into a ChunkBatch. */
export type PageChunker = (xml: Uint8Array, pages: number) => ChunkBatch;

/**
 * Parse, filter, clean, simplify and chunk a batch of pages, all in the calling thread: a worker
 * runs one of these, and a build without workers runs the same one, so the output cannot depend on
 * the worker count.
 */
export async function createPageChunker(input: PageChunkerSettings): Promise<PageChunker> {
  const settings = PageChunkerSettingsSchema.parse(input);
  const { chunking } = settings;
  // Loaded only when asked for: transformers.js is heavy to import in every worker.
  const measure: SizeMeasure =
    chunking.unit === 'tokens' ? await (await import('../../chunking/tokenCounter.js')).loadTokenizerSpec(chunking.tokenizer!) : countCodePoints;
  const toItem = createPageItems(settings.page);
  const utf8 = new TextDecoder('utf-8', { fatal: false });
  return (xml, expectedPages) => {
    const reader = new DumpXmlReader(settings.file);
    // The pages are a fragment: an enclosing element makes them one document.
    const pages = reader.write(`<pages>${utf8.decode(xml)}</pages>`);
    pages.push(...reader.close());
    if (reader.error) throw new Error(`malformed XML: ${reader.error.message}`);
    if (pages.length !== expectedPages) throw new Error(`malformed XML: ${expectedPages} page ends but ${pages.length} pages`);
    const batch = new ChunkBatchWriter();
    for (const page of pages) {
      const item = toItem(page);
      batch.add(item, () => (item.kind === 'document' ? chunkDocument(item.document, { ...chunking, corpus: settings.corpus, measure }) : []));
    }
    return batch.finish();
  };
}
