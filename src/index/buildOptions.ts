import type { Chunk } from '../runFiles/corpusFiles.js';
import { createEmbedder } from '../embedding/registry.js';
import type { TextEmbedder } from '../embedding/types.js';
import { InputError } from '../errors.js';
import { VERSION } from '../version.js';
import type { CorpusInput } from './corpusInput.js';
import type { BuildInputs } from '../runFiles/buildInputs.js';
import type { ProgressOptions } from '../progress/progress.js';
import { INDEX_FORMAT_VERSION, type ComponentSpec, type HnswParams, type IndexKind, type Bm25Params, type IndexManifest, type LanceDbParams } from '../runFiles/indexManifest.js';
import type { TuneOptions } from './tuneEfSearch.js';
import type { VectorEncoding } from './vectorEncoding.js';

/** What `buildIndex` takes for a lancedb index; `vectorIndex: auto` picks IVF-PQ from LANCEDB_IVF_PQ_MIN_ROWS rows. */
export interface LanceDbBuildOptions extends Partial<Omit<LanceDbParams, 'vectorIndex' | 'distance'>> {
  vectorIndex?: LanceDbParams['vectorIndex'] | 'auto';
}

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

/** The build's embedder: the caller's instance, else one created from the spec and disposed of by `release`. */
export async function buildEmbedder(options: BuildIndexOptions): Promise<{ embedder: TextEmbedder; release(): Promise<void> }> {
  if (options.embedderInstance) return { embedder: options.embedderInstance, release: async () => {} };
  if (!options.embedder) throw new InputError(`index build: --embedder is required for a ${options.retriever} index`);
  const embedder = await createEmbedder(options.embedder);
  let released = false;
  const release = async () => {
    if (!released) await embedder.dispose();
    released = true;
  };
  return { embedder, release };
}

/** An incomplete manifest of a new build; `settings` are the kind's own fields (embedder, hnsw, …). */
export function plannedIndexManifest(corpus: CorpusInput, options: BuildIndexOptions, settings: Partial<IndexManifest>): IndexManifest {
  return {
    formatVersion: INDEX_FORMAT_VERSION,
    kind: options.retriever,
    complete: false,
    corpus: { dir: corpus.dir, name: corpus.name, contentHash: corpus.manifest.contentHash },
    ...settings,
    counts: { chunks: 0, documents: 0, vectors: 0, terms: 0 },
    timings: {},
    toolVersion: VERSION,
    createdAt: new Date().toISOString(),
    ...(options.inputs && { inputs: options.inputs }),
  };
}

/**
 * The corpus's chunks in batches of `batchSize`, after the first `already` (resume: the corpus is the
 * same, its content hash checked, so those are stored); `onEach` sees every chunk with its line number.
 */
export async function* chunkBatchesAfter(
  chunks: AsyncIterable<Chunk>,
  already: number,
  batchSize: number,
  onEach?: (chunk: Chunk, line: number) => void,
): AsyncGenerator<Chunk[]> {
  let line = 0;
  let batch: Chunk[] = [];
  for await (const chunk of chunks) {
    line++;
    onEach?.(chunk, line);
    if (line <= already) continue;
    batch.push(chunk);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Checks an embedder's answer has `dimension` floats a vector. */
export function checkDimensions(vectors: number[][], batch: Chunk[], dimension: number | undefined): number[][] {
  vectors.forEach((vector, i) => {
    if (vector.length !== dimension) {
      throw new Error(`embedder returned ${vector.length} dimensions for chunk "${batch[i]!.id}", expected ${dimension}`);
    }
  });
  return vectors;
}
