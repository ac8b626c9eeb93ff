import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { ChunkStore, type LabelledChunk } from '../index/chunkStore.js';
import { CHUNK_STORE_FILE, readIndexManifest } from '../runFiles/indexManifest.js';
import { corpusManifestIfAny } from '../runFiles/corpusFiles.js';
import type { RetrievalQuery } from './types.js';

/**
 * The exact duplicates the index's corpus dropped (dropped id → kept id), from the corpus manifest
 * the index names; empty when the corpus is not there (moved) or dropped none.
 */
export function corpusDuplicates(indexDir: string): Record<string, string> {
  const index = readIndexManifest(indexDir);
  return (index && corpusManifestIfAny(index.corpus.dir)?.duplicateOf) ?? {};
}

/** A gold id as the index holds it: itself, or — a duplicate the corpus dropped, never indexed — the kept chunk with the same text. */
export function keptGoldId(id: string, duplicateOf: Record<string, string>): string {
  return duplicateOf[id] ?? id;
}

/**
 * The gold evidence of a query as stored chunks: `gold.chunkIds` in their given order, or the chunks of
 * `gold.docId` (else `query.docId`) whose pages (`meta.page`, `meta.pages`) are in `gold.pages`, in
 * corpus order; none without gold (unanswerable items).
 */
export function goldChunks(store: ChunkStore, query: RetrievalQuery, indexDir: string): LabelledChunk[] {
  const gold = query.gold;
  if (gold?.chunkIds?.length) {
    const duplicateOf = corpusDuplicates(indexDir);
    return gold.chunkIds.map((id) => {
      // A dropped duplicate's gold is its kept twin: the same text.
      const chunk = store.byId(id) ?? store.byId(keptGoldId(id, duplicateOf));
      if (!chunk) throw new InputError(`${indexDir}: gold chunk "${id}" of item ${query.itemId ?? '?'} is not in this index`);
      return chunk;
    });
  }
  if (gold?.pages?.length) {
    const docId = gold.docId ?? query.docId;
    if (!docId) throw new InputError(`item ${query.itemId ?? '?'}: gold pages need gold.docId or the query's docId`);
    const pages = new Set(gold.pages);
    return store.byLabels(store.labelsOfDoc(docId)).filter((chunk) => {
      // A page-window chunk (meta.pages) is gold only when every page it covers is.
      const covered = Array.isArray(chunk.meta.pages) ? chunk.meta.pages.map(Number) : [Number(chunk.meta.page)];
      return covered.length > 0 && covered.every((page) => pages.has(page));
    });
  }
  return [];
}

/** One question's gold chunk ids, with where its record is (`file: line 3`), for the check before a run. */
export interface GoldReference {
  itemId: string;
  origin?: string;
  chunkIds: string[];
}

/**
 * Gold chunk ids that name nothing in an index (chunks.sqlite; a lancedb index is not checked), one
 * entry per question with ids missing. Empty when all are there.
 */
export function missingGoldChunks(indexDir: string, references: GoldReference[]): (GoldReference & { missing: string[]; twins: Record<string, string> })[] {
  const path = join(indexDir, CHUNK_STORE_FILE);
  if (!existsSync(path) || references.length === 0) return [];
  const store = ChunkStore.open(path, { readonly: true });
  try {
    const duplicateOf = corpusDuplicates(indexDir);
    return references.flatMap((reference) => {
      const missing = reference.chunkIds.filter((id) => !store.byId(id));
      // A dropped duplicate is named with its kept twin: the gold file should name that id.
      const twins = Object.fromEntries(missing.filter((id) => duplicateOf[id] !== undefined).map((id) => [id, duplicateOf[id]!]));
      return missing.length > 0 ? [{ ...reference, missing, twins }] : [];
    });
  } finally {
    store.close();
  }
}
