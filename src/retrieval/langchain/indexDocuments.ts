import { Document } from '@langchain/core/documents';
import type { OpenedIndex } from '../../index/openIndex.js';

/** One batch of a hisrag index's stored chunks as LangChain Documents with their stored vectors. */
export interface IndexDocumentBatch {
  documents: Document[];
  vectors: number[][];
}

/**
 * Streams a dense hisrag index (hnsw or exact) as Documents + vectors, in label order, to fill a
 * LangChain store with exactly the vectors hisrag searches (no re-embedding). Metadata: id, docId,
 * title, parentId (the enclosing document, or null) and meta as JSON (stores with flat columns keep it as one).
 */
export function* indexDocuments(index: OpenedIndex, batchSize = 1000): Generator<IndexDocumentBatch> {
  let batch: IndexDocumentBatch = { documents: [], vectors: [] };
  const vectors = index.store.vectors();
  // Both statements stream from one SQLite connection; the vector iterator must be finished to free it.
  try {
    for (const chunk of index.store.chunks()) {
      const next = vectors.next();
      if (next.done || next.value[0] !== chunk.label) throw new Error(`${index.dir}: chunk ${chunk.label} has no stored vector`);
      const parent = chunk.meta.doc_id;
      batch.documents.push(
        new Document({
          id: chunk.id,
          pageContent: chunk.text,
          metadata: {
            label: chunk.label,
            id: chunk.id,
            docId: chunk.docId,
            parentId: typeof parent === 'string' && parent !== chunk.docId ? parent : null,
            title: chunk.title,
            meta: JSON.stringify(chunk.meta),
          },
        }),
      );
      batch.vectors.push(Array.from(next.value[1]));
      if (batch.documents.length >= batchSize) {
        yield batch;
        batch = { documents: [], vectors: [] };
      }
    }
  } finally {
    vectors.return(undefined);
  }
  if (batch.documents.length > 0) yield batch;
}
