import { join } from 'node:path';
import type { TextEmbedder } from '../embedding/types.js';
import { InputError } from '../errors.js';
import { Bm25Searcher } from './bm25/bm25Index.js';
import { ChunkStore } from './chunkStore.js';
import { ExactSearch } from './exactSearch.js';
import type { GraphIndex } from './graphIndex.js';
import { graphLibrary } from './graphs/graphLibraries.js';
import { catchUpGraph, loadHnswGraph, type HnswGraph } from './hnswGraph.js';
import { queryEmbedderFor, type QueryEmbedder } from './queryEmbedder.js';
import { CHUNK_STORE_FILE, HNSW_FILE, requireCompleteIndexManifest, type ComponentSpec, type IndexManifest } from '../runFiles/indexManifest.js';

export interface OpenIndexOptions {
  /** Query embedder: an instance, or a registry spec; by default the manifest's spec is re-created. */
  embedder?: TextEmbedder | ComponentSpec;
}

/** A complete index directory opened for querying; its parts load on first use. */
export interface OpenedIndex {
  dir: string;
  manifest: IndexManifest;
  store: ChunkStore;
  /** The query embedder, checked against the manifest's identity (dense kinds only). */
  embedder(): Promise<TextEmbedder>;
  /** Embeds a query with the index's embedder (query prefix included). */
  embedQuery(text: string): Promise<number[]>;
  /** Embeds many queries in one call (the embedder batches them, query prefix included), what `embedQuery` does one at a time. */
  embedQueries(texts: string[]): Promise<number[][]>;
  exact(): ExactSearch;
  /** The hnswlib graph (hnswlib indexes only; see `graph()` for any library). */
  hnsw(): HnswGraph;
  /** The index's HNSW graph, whichever library built it. */
  graph(): Promise<GraphIndex>;
  bm25(): Bm25Searcher;
  close(): Promise<void>;
}

/**
 * Opens an index directory. An embedder whose identity (model, dimension, pooling, normalisation,
 * query prefix) differs from the manifest's is refused with an InputError naming the differences, and
 * so is one whose model files have another fingerprint (regenerated or swapped weights at the same path).
 */
export async function openIndex(dir: string, options: OpenIndexOptions = {}): Promise<OpenedIndex> {
  const manifest = await requireCompleteIndexManifest(dir);
  if (manifest.kind === 'lancedb') {
    throw new InputError(`${dir}: a lancedb index keeps its chunks in LanceDB; query it with retriever lancedb (or langchain-lancedb)`);
  }
  const store = ChunkStore.open(join(dir, CHUNK_STORE_FILE), { readonly: true });
  let query: Promise<QueryEmbedder> | undefined;
  let exact: ExactSearch | undefined;
  let graph: HnswGraph | undefined;
  let graphIndex: Promise<GraphIndex> | undefined;
  let bm25: Bm25Searcher | undefined;

  const embedder = async () => (await (query ??= queryEmbedderFor(dir, manifest, options.embedder))).embedder;

  // An explicitly given embedder is checked now, so a mismatch is reported on open, not on first query.
  if (options.embedder && manifest.embedder) await embedder();

  return {
    dir,
    manifest,
    store,
    embedder,
    async embedQuery(text) {
      return (await embedder()).embedQuery(text);
    },
    async embedQueries(texts) {
      if (texts.length === 0) return [];
      const instance = await embedder();
      if (texts.length === 1 || !instance.embedQueries) return Promise.all(texts.map((text) => instance.embedQuery(text)));
      return instance.embedQueries(texts);
    },
    exact() {
      if (!manifest.embedder) throw new InputError(`${dir}: a ${manifest.kind} index stores no vectors`);
      return (exact ??= new ExactSearch(store, manifest.embedder.identity.dimension, manifest.embedder.space));
    },
    graph() {
      const { hnsw, embedder: recorded } = manifest;
      if (!hnsw || !recorded) return Promise.reject(new InputError(`${dir}: not an hnsw index (kind ${manifest.kind})`));
      return (graphIndex ??= graphLibrary(hnsw.library).then((library) =>
        library.open(join(dir, library.file), recorded.identity.dimension, hnsw, store),
      ));
    },
    hnsw() {
      if (!manifest.hnsw || !manifest.embedder) throw new InputError(`${dir}: not an hnsw index (kind ${manifest.kind})`);
      if (manifest.hnsw.library !== 'hnswlib') throw new InputError(`${dir}: the graph is a ${manifest.hnsw.library} index, not hnswlib's`);
      if (!graph) {
        graph = loadHnswGraph(join(dir, HNSW_FILE), manifest.embedder.identity.dimension, manifest.hnsw);
        // Chunks committed by an add that crashed before rewriting hnsw.bin are still found.
        catchUpGraph(graph, store);
      }
      return graph;
    },
    bm25() {
      if (!manifest.bm25) throw new InputError(`${dir}: not a bm25 index (kind ${manifest.kind})`);
      return (bm25 ??= new Bm25Searcher(store, manifest.bm25));
    },
    async close() {
      await exact?.close();
      store.close();
      await (await query?.catch(() => undefined))?.release();
    },
  };
}
