import type { z } from 'zod';
import type { ComponentSpecSchema } from '../../runFiles/indexManifest.js';
import type { OpenedIndex } from '../../index/openIndex.js';
import type { Scored } from '../../index/topK.js';
import { documentLabels } from '../documentScope.js';
import type { RetrieverContext } from '../retrieverContext.js';
import { toRetrievedChunkLists } from '../toRetrievedChunks.js';
import { embeddingRelevance } from '../relevance.js';
import type { RetrievalQuery, RetrievedChunk, Retriever, RetrieverDescription } from '../types.js';

export async function openDenseIndex(
  params: { index: string; embedder?: z.infer<typeof ComponentSpecSchema> },
  context: RetrieverContext,
): Promise<OpenedIndex> {
  return context.openIndex(params.index, { embedder: params.embedder ?? context.embedder });
}

type CorpusWide = (vectors: number[][], k: number) => Promise<Scored[][]> | Scored[][];

/** A dense retriever (hnsw, exact): its own `corpusWide` search, the shared query path, relevance by the index's embedder. */
export function denseRetriever(name: string, index: OpenedIndex, corpusWide: CorpusWide, describe: () => RetrieverDescription): Retriever {
  return {
    name,
    async retrieve(query, k) {
      return (await retrieveDense(index, [query], k, corpusWide))[0]!;
    },
    retrieveBatch: (queries, k) => retrieveDense(index, queries, k, corpusWide),
    relevance: embeddingRelevance(() => index.embedder()),
    describe,
    close: () => index.close(),
  };
}

/**
 * The shared query path of dense retrievers, for one query or many: the queries are embedded in one
 * call; those scoped to a document (`docId`) are ranked by exact search over that document's vectors,
 * the rest by `corpusWide` (the graph, or block-wise exact search) in one go; then every hit list's
 * chunks are read from the store in one query.
 */
async function retrieveDense(index: OpenedIndex, queries: RetrievalQuery[], k: number, corpusWide: CorpusWide): Promise<RetrievedChunk[][]> {
  if (queries.length === 0) return [];
  const vectors = await index.embedQueries(queries.map((query) => query.text));
  const ranked: Scored[][] = new Array(queries.length);
  const wide: number[] = [];
  queries.forEach((query, i) => {
    if (query.docId) ranked[i] = index.exact().search(vectors[i]!, k, documentLabels(index.store, query.docId, index.dir));
    else wide.push(i);
  });
  if (wide.length > 0) {
    const found = await corpusWide(wide.map((i) => vectors[i]!), k);
    wide.forEach((queryIndex, j) => (ranked[queryIndex] = found[j]!));
  }
  return toRetrievedChunkLists(index.store, ranked);
}
