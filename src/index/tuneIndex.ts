import { join } from 'node:path';
import { InputError } from '../errors.js';
import { ChunkStore } from './chunkStore.js';
import { ExactSearch } from './exactSearch.js';
import { graphLibrary } from './graphs/graphLibraries.js';
import { CHUNK_STORE_FILE, requireCompleteIndexManifest, writeIndexManifest, type EfTuning } from '../runFiles/indexManifest.js';
import { tuneEfSearch, type TuneOptions } from './tuneEfSearch.js';

export interface TuneIndexOptions extends TuneOptions {
  /** Record the result as the index's default efSearch (default true); false only measures. */
  write?: boolean;
}

/**
 * Re-measures an hnsw index's efSearch for another depth or target recall (`hisrag index tune`): the
 * smallest efSearch reaching `target` recall@k against exact search on a held-out sample, or the recall
 * of a given efSearch (`fixed`). Written to the manifest (atomically) unless `write` is false.
 */
export async function tuneIndex(dir: string, options: TuneIndexOptions = {}): Promise<EfTuning> {
  const manifest = await requireCompleteIndexManifest(dir);
  if (manifest.kind !== 'hnsw' || !manifest.hnsw || !manifest.embedder) {
    throw new InputError(`${dir}: efSearch tuning needs an hnsw index, this one is ${manifest.kind}`);
  }
  const { dimension } = manifest.embedder.identity;
  const store = ChunkStore.open(join(dir, CHUNK_STORE_FILE), { readonly: true });
  const exact = new ExactSearch(store, dimension, manifest.embedder.space);
  try {
    const library = await graphLibrary(manifest.hnsw.library);
    const graph = library.open(join(dir, library.file), dimension, manifest.hnsw, store);
    const tuning = await tuneEfSearch(graph, exact, store, options);
    if (options.write ?? true) {
      await writeIndexManifest(dir, { ...manifest, hnsw: { ...manifest.hnsw, efSearch: tuning.efSearch, tuning } });
    }
    return tuning;
  } finally {
    await exact.close();
    store.close();
  }
}
