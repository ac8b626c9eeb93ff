import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { Bm25Searcher } from '../../index/bm25/bm25Index.js';
import { documentLabels } from '../documentScope.js';
import { retrievers } from '../registry.js';
import { toRetrievedChunks } from '../toRetrievedChunks.js';

/**
 * Lexical retrieval with the persisted BM25 index (formula in `src/index/bm25/bm25Index.ts`).
 * k1 and b may be overridden at query time (postings keep raw term frequencies); the tokenizer
 * settings are the index's. With `query.docId`, postings are filtered to that document's chunks.
 */
retrievers.register({
  name: 'bm25',
  description: 'BM25 (Okapi, Lucene idf) over jieba terms and optional CJK bigrams',
  params: z
    .object({
      index: z.string().min(1).describe('Folder of a bm25 index (`hisrag index build`)'),
      k1: z.number().nonnegative().optional().describe('BM25 term-frequency saturation (default: the index\'s)'),
      b: z.number().min(0).max(1).optional().describe('BM25 length normalisation, 0–1 (default: the index\'s)'),
    })
    .strict(),
  async create(params, context) {
    const index = await context.openIndex(params.index);
    const recorded = index.manifest.bm25;
    if (!recorded) {
      await index.close();
      throw new ConfigError(`${params.index}: retriever bm25 needs a bm25 index, this one is ${index.manifest.kind}`);
    }
    const settings = { ...recorded, ...(params.k1 !== undefined && { k1: params.k1 }), ...(params.b !== undefined && { b: params.b }) };
    const searcher = new Bm25Searcher(index.store, settings);
    return {
      name: 'bm25',
      async retrieve(query, k) {
        const scope = query.docId ? new Set(documentLabels(index.store, query.docId, params.index)) : undefined;
        return toRetrievedChunks(index.store, searcher.search(query.text, k, scope));
      },
      relevance: async (query, texts) => searcher.scoreTexts(query, texts),
      describe: () => ({ name: 'bm25', index: params.index, bm25: settings, corpusHash: index.manifest.corpus.contentHash }),
      close: () => index.close(),
    };
  },
});
