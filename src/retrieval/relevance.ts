import type { Embeddings } from '@langchain/core/embeddings';

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * Relevance of texts to a query by an embedder (any LangChain `Embeddings`): the query embedded as
 * a query (prefix included), the texts as documents, scored by cosine — the measure a dense index
 * ranks by (FlashRAG's extractive refiner does the same with its retriever's encoder).
 */
export function embeddingRelevance(embedder: () => Promise<Embeddings>): (query: string, texts: string[]) => Promise<number[]> {
  return async (query, texts) => {
    if (texts.length === 0) return [];
    const model = await embedder();
    const [q, docs] = await Promise.all([model.embedQuery(query), model.embedDocuments(texts)]);
    return docs.map((d) => cosine(q, d));
  };
}
