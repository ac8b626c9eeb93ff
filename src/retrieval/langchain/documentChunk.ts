import { randomUUID } from 'node:crypto';
import type { DocumentInterface } from '@langchain/core/documents';
import type { Chunk } from '../../runFiles/corpusFiles.js';

/**
 * A LangChain Document as a hisrag chunk. Metadata maps to chunk fields: `id` (else the Document id,
 * else a fresh `lc:<uuid>`), `docId` (else the id), `title`, and `meta` (an object, or a JSON object
 * string as stores that keep flat columns write it; else the remaining metadata, less per-result
 * fields such as score and rank).
 */
export function documentToChunk(document: DocumentInterface): Chunk {
  // Per-result fields (score, rank, LanceDB's _distance) and hisrag's own columns are not chunk metadata.
  const { id: metaId, docId, title, meta, score: _score, rank: _rank, _distance, label: _label, parentId: _parentId, ...rest } =
    document.metadata as Record<string, unknown>;
  const id = typeof metaId === 'string' && metaId ? metaId : (document.id ?? `lc:${randomUUID()}`);
  return {
    id,
    docId: typeof docId === 'string' && docId ? docId : id,
    title: typeof title === 'string' ? title : '',
    text: document.pageContent,
    meta: metaObject(meta) ?? rest,
  };
}

function metaObject(meta: unknown): Record<string, unknown> | undefined {
  if (typeof meta === 'string') {
    try {
      const parsed: unknown = JSON.parse(meta);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
  return meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}
