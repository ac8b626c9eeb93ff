import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { Retriever } from '../types.js';
import type { Bm25Params } from './bm25Schema.js';
import { ConfigError } from '../../errors.js';
import { Bm25Searcher } from '../../index/bm25/bm25Index.js';
import { documentLabels } from '../documentScope.js';
import { toRetrievedChunks } from '../toRetrievedChunks.js';

/**
 * Lexical retrieval with the persisted BM25 index (formula in `src/index/bm25/bm25Index.ts`).
 * k1 and b may be overridden at query time (postings keep raw term frequencies); the tokenizer
 * settings are the index's. With `query.docId`, postings are filtered to that document's chunks.
 */
export const bm25Retriever: Pick<RegistryEntry<Bm25Params, Retriever, RetrieverContext>, 'create'> = {
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
};
