import { join } from 'node:path';
import type { Chunk } from '../runFiles/corpusFiles.js';
import type { TextEmbedder } from '../embedding/types.js';
import { InputError } from '../errors.js';
import { buildBm25 } from './bm25/bm25Index.js';
import { ChunkStore } from './chunkStore.js';
import { graphLibrary } from './graphs/graphLibraries.js';
import { queryEmbedderFor } from './queryEmbedder.js';
import { CHUNK_STORE_FILE, requireCompleteIndexManifest, writeIndexManifest, type IndexManifest } from '../runFiles/indexManifest.js';
import { passageText } from './passageText.js';

export interface AppendChunksOptions {
  /** Embedder for the new chunks (checked against the index); default: re-created from the manifest. */
  embedder?: TextEmbedder;
  /** Precomputed vectors, one per chunk, from the index's embedder (LangChain `addVectors`). */
  vectors?: number[][];
}

/**
 * Incremental add: appends chunks to a complete index. The chunk store transaction is the commit
 * point; the HNSW graph is then extended and rewritten atomically (and an opened index adds any stored
 * vectors its graph lacks, so a crash in between loses nothing). BM25 postings are rebuilt in full.
 * `counts.appended` records how many chunks did not come from the indexed corpus.
 */
export async function appendChunks(dir: string, chunks: Chunk[], options: AppendChunksOptions = {}): Promise<IndexManifest> {
  const manifest = await requireCompleteIndexManifest(dir);
  if (chunks.length === 0) return manifest;
  let vectors: Float32Array[] | undefined;
  const recorded = manifest.embedder;
  if (recorded) {
    let raw = options.vectors;
    if (!raw && recorded.documents === 'image') {
      throw new InputError(`${dir}: an index of page images takes added chunks with their vectors (embed their images with the index's embedder and pass vectors)`);
    }
    if (!raw) {
      const { embedder, release } = await queryEmbedderFor(dir, manifest, options.embedder);
      try {
        raw = await embedder.embedDocuments(chunks.map((chunk) => passageText(chunk, recorded.passage)));
      } finally {
        await release();
      }
    }
    if (raw.length !== chunks.length || raw.some((v) => v.length !== recorded.identity.dimension)) {
      throw new InputError(`${dir}: expected ${chunks.length} vectors of ${recorded.identity.dimension} dimensions`);
    }
    vectors = raw.map((v) => Float32Array.from(v));
  }
  const store = ChunkStore.open(join(dir, CHUNK_STORE_FILE));
  try {
    store.append(chunks, vectors, (i) => `added chunk ${i + 1}`);
    let terms = manifest.counts.terms;
    if (manifest.kind === 'hnsw' && manifest.hnsw && recorded) {
      const library = await graphLibrary(manifest.hnsw.library);
      await library.catchUp(join(dir, library.file), recorded.identity.dimension, manifest.hnsw, store);
    }
    if (manifest.kind === 'bm25' && manifest.bm25) terms = buildBm25(store, manifest.bm25).terms;
    store.finish();
    const updated: IndexManifest = {
      ...manifest,
      counts: {
        ...manifest.counts,
        chunks: store.count(),
        documents: store.countDocuments(),
        vectors: store.countVectors(),
        terms,
        appended: (manifest.counts.appended ?? 0) + chunks.length,
      },
    };
    await writeIndexManifest(dir, updated);
    return updated;
  } finally {
    store.close();
  }
}
