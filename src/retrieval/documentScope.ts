import type { ChunkStore } from '../index/chunkStore.js';
import { InputError } from '../errors.js';

/** Labels of `docId`'s chunks; an unknown document is an input error, not an empty result. */
export function documentLabels(store: ChunkStore, docId: string, indexDir: string): number[] {
  const labels = store.labelsOfDoc(docId);
  if (labels.length === 0) throw new InputError(`${indexDir}: no chunks of document "${docId}" in this index`);
  return labels;
}
