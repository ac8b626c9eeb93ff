import type { TextEmbedder } from '../embedding/types.js';
import type { BuildInputs } from '../io/fingerprint.js';
import type { ProgressOptions } from '../progress/progress.js';
import type { LanceDbBuildOptions } from './lancedb/params.js';
import type { ComponentSpec, HnswParams, IndexKind, Bm25Params } from './manifest.js';
import type { TuneOptions } from './tuneEfSearch.js';
import type { VectorEncoding } from './vectorEncoding.js';

/** What `buildIndex` takes (every index kind; the lancedb build reads the same options). */
export interface BuildIndexOptions {
  corpusDir: string;
  out: string;
  retriever: IndexKind;
  /** Registry spec of the embedder (hnsw/exact); recorded so queries re-create the same embedder. */
  embedder?: ComponentSpec;
  /** An embedder already created (library callers, tests); takes precedence over creating one from `embedder`. */
  embedderInstance?: TextEmbedder;
  /** HNSW links per node and build breadth; defaults depend on the graph library (see graphDefaults). */
  M?: number;
  efConstruction?: number;
  efSearch?: number;
  randomSeed?: number;
  /** HNSW implementation (default hnswlib); usearch stores `quantization` (default i8) vectors in its graph. */
  graphLibrary?: HnswParams['library'];
  quantization?: HnswParams['quantization'];
  /** Precision of the stored vectors (exact search, rebuilds, resume): f16 by default; f32 exact; i8 a quarter of f32. */
  vectorEncoding?: VectorEncoding;
  bm25?: Partial<Bm25Params>;
  /** lancedb: table location, vector index and query defaults (src/index/lancedb/). */
  lancedb?: LanceDbBuildOptions;
  /** Embed `title\ntext` (default) or the text alone. */
  passage?: 'title+text' | 'text';
  /**
   * `image`: embed each chunk's page image (`<corpus imageDir>/<meta.image.path>`) instead of its text,
   * with an image-capable embedder (`clip`, or `openai` against a server that embeds images); queries
   * stay text. hnsw and exact only.
   */
  documents?: 'text' | 'image';
  /** Chunks per embedding call and per stored transaction (the checkpoint unit). */
  batchSize?: number;
  /** Continue an interrupted build of the same settings instead of refusing the existing directory. */
  resume?: boolean;
  signal?: AbortSignal;
  /** Called after each stored batch with the number of chunks now stored (lets tests interrupt a build). */
  onBatchStored?: (stored: number) => void | Promise<void>;
  progress?: Pick<ProgressOptions, 'silent' | 'plain' | 'stream'>;
  /** efSearch tuning at build time (hnsw): recall@k target on a held-out sample; ignored when `efSearch` is given (then only measured). */
  tune?: Pick<TuneOptions, 'k' | 'target' | 'sample'>;
  /** What the index is built from besides its corpus (`indexBuildInputs`): recorded in the manifest, so a later prepare knows when to rebuild. */
  inputs?: BuildInputs;
  /** Called as each phase starts (tests check that the embedder is released before the graph phase). */
  onPhase?: (phase: 'store' | 'graph' | 'tune' | 'bm25') => void | Promise<void>;
}
