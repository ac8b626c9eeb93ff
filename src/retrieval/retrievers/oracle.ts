import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { Retriever } from '../types.js';
import type { OracleParams } from './oracleSchema.js';
import { goldChunks } from '../goldChunks.js';
import { reRank } from '../toRetrievedChunks.js';

/**
 * Control: returns the gold evidence (chunk ids, or the pages of the query's document) and nothing
 * else, at most k, each with score 1 — retrieval with no missing evidence and no distraction.
 */
export const oracleRetriever: Pick<RegistryEntry<OracleParams, Retriever, RetrieverContext>, 'create'> = {
  async create(params, context) {
    const index = await context.openIndex(params.index);
    return {
      name: 'oracle',
      async retrieve(query, k) {
        const gold = goldChunks(index.store, query, params.index).slice(0, k);
        return reRank(gold.map(({ label: _label, ...chunk }) => ({ ...chunk, score: 1 })));
      },
      describe: () => ({ name: 'oracle', index: params.index, corpusHash: index.manifest.corpus.contentHash }),
      close: () => index.close(),
    };
  },
};
