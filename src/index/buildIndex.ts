import { DEFAULT_BM25, DEFAULT_HNSW, DEFAULT_VECTOR_ENCODING, graphDefaults } from './defaults.js';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Chunk } from '../runFiles/corpusFiles.js';
import { isImageEmbedder, type ImageEmbedder, type TextEmbedder } from '../embedding/types.js';
import type { PageImageRef } from '../runFiles/pageImage.js';
import { chunkPageImage, corpusImageDir } from './chunkImage.js';
import { InputError } from '../errors.js';
import { createProgress } from '../progress/progress.js';
import { buildBm25 } from './bm25/bm25Index.js';
import { ChunkStore } from './chunkStore.js';
import { openCorpusInput, type CorpusInput } from './corpusInput.js';
import type { StreamedGraphBuild, TunableGraph } from './graphIndex.js';
import { graphLibrary } from './graphs/graphLibraries.js';
import { prepareIndexOutDir } from './outDir.js';
import {
  CHUNK_STORE_FILE,
  HNSW_FILE,
  USEARCH_FILE,
  writeIndexManifest,
  type HnswParams,
  type IndexManifest,
} from '../runFiles/indexManifest.js';
import { buildEmbedder, checkDimensions, chunkBatchesAfter, plannedIndexManifest, type BuildIndexOptions } from './buildOptions.js';
import { passageText } from './passageText.js';
import { decodeVectorInto, encodeVector } from './vectorEncoding.js';
import { ExactSearch } from './exactSearch.js';
import { heldOutSample, tuneEfSearch } from './tuneEfSearch.js';

/**
 * Builds an index directory from a corpus directory: chunks (and their vectors) are appended to
 * `chunks.sqlite` one batch a transaction (the checkpoint `--resume` continues from); the embedder is
 * released, so model and graph never share memory; then the graph (written atomically, its efSearch
 * tuned) or the BM25 postings are built; `manifest.json` says `complete: true` last.
 * Over a remote embedder (`embedder.remote`), up to twice its concurrency of batches are embedded
 * while the oldest is stored and fed to a graph on its own thread (hnswlib): the same graph, sooner.
 */
export async function buildIndex(options: BuildIndexOptions): Promise<IndexManifest> {
  // A lancedb index keeps chunks and vectors in a LanceDB table, not chunks.sqlite: its own build.
  if (options.retriever === 'lancedb' && options.documents === 'image') throw new InputError('index build: documents "image" is built for hnsw and exact indexes, not lancedb');
  if (options.retriever === 'lancedb') return (await import('./lancedb/buildLanceDbIndex.js')).buildLanceDbIndex(options);
  const started = Date.now();
  const corpus = await openCorpusInput(options.corpusDir);
  const dense = options.retriever !== 'bm25';
  const loaded = dense ? await buildEmbedder(options) : undefined;
  let embedder = loaded?.embedder;
  try {
    const documents = options.documents ?? 'text';
    const imageDir = documents === 'image' ? imageDirFor(options, corpus, embedder) : undefined;
    const identity = await embedder?.identity();
    const fingerprint = await embedder?.fingerprint?.();
    const conventions = await embedder?.conventionSources?.();
    const space = identity?.normalize ? 'ip' : 'cosine';
    const hnsw = options.retriever === 'hnsw' ? hnswParams(options, space) : undefined;
    const bm25Overrides = Object.fromEntries(Object.entries(options.bm25 ?? {}).filter(([, value]) => value !== undefined));
    const bm25 = options.retriever === 'bm25' ? { ...DEFAULT_BM25, ...bm25Overrides } : undefined;
    const passage = options.passage ?? 'title+text';
    let manifest = plannedIndexManifest(corpus, options, {
      ...(identity && {
        embedder: {
          identity,
          ...(fingerprint && { fingerprint }),
          ...(options.embedder && { spec: options.embedder }),
          ...(conventions && { conventions }),
          space,
          passage,
          ...(imageDir && { documents, imageDir }),
        },
      }),
      ...(hnsw && { hnsw }),
      ...(bm25 && { bm25 }),
      ...(dense && { vectorEncoding: options.vectorEncoding ?? DEFAULT_VECTOR_ENCODING }),
    });

    const existing = await prepareIndexOutDir(options.out, manifest, options.resume ?? false, buildSettings);
    if (existing?.complete) return existing;
    if (existing) {
      manifest = { ...manifest, createdAt: existing.createdAt };
      // An interrupted build wrote no graph file that can be trusted: the graph is built again.
      for (const file of [HNSW_FILE, USEARCH_FILE]) await rm(join(options.out, file), { force: true });
    }
    await writeIndexManifest(options.out, manifest);

    const store = ChunkStore.open(join(options.out, CHUNK_STORE_FILE));
    // A remote embedder holds no model here: the graph is built while the batches are embedded.
    let stream: StreamedGraph | undefined;
    try {
      if (manifest.vectorEncoding) store.setVectorEncoding(manifest.vectorEncoding);
      const timings: Record<string, number> = {};
      let phase = Date.now();
      await options.onPhase?.('store');
      const planned = corpus.manifest.counts.chunksWritten;
      const remote = embedder?.remote;
      if (remote && hnsw && identity) stream = await startStreamedGraph(hnsw, identity.dimension, planned, options);
      await storeChunks(store, corpus.chunks(), corpus.chunksPath, planned, {
        embedder,
        dimension: identity?.dimension,
        passage,
        imageDir,
        batchSize: options.batchSize ?? 64,
        window: remote ? 2 * Math.max(1, remote.concurrency) : 1,
        graph: stream?.build,
        signal: options.signal,
        onBatchStored: options.onBatchStored,
        progress: options.progress,
      });
      timings.storeSeconds = (Date.now() - phase) / 1000;
      // Every vector is stored: the model is not needed any more, and must not share memory with the graph.
      await loaded?.release();
      embedder = undefined;

      phase = Date.now();
      let terms = 0;
      if (hnsw && identity) {
        // buildTunedGraph finishes or aborts the streamed graph.
        const graph = await buildTunedGraph(store, stream, planned, hnsw, identity.dimension, options);
        stream = undefined;
        if (graph.tuned) manifest = { ...manifest, hnsw: graph.tuned };
        timings.hnswSeconds = (Date.now() - phase) / 1000 - graph.tuneSeconds;
        timings.tuneSeconds = graph.tuneSeconds;
      }
      if (bm25) {
        await options.onPhase?.('bm25');
        const progress = createProgress({ label: 'bm25', total: store.count(), unit: 'chunks', ...options.progress });
        terms = buildBm25(store, bm25, () => progress.tick()).terms;
        progress.stop();
        timings.bm25Seconds = (Date.now() - phase) / 1000;
      }
      store.finish();
      timings.totalSeconds = (Date.now() - started) / 1000;
      manifest = {
        ...manifest,
        complete: true,
        counts: { chunks: store.count(), documents: store.countDocuments(), vectors: store.countVectors(), terms },
        timings,
        completedAt: new Date().toISOString(),
      };
    } finally {
      // An interrupted or failed build stops its graph thread; nothing of the graph is written.
      await stream?.build.abort();
      store.close();
    }
    await writeIndexManifest(options.out, manifest);
    return manifest;
  } finally {
    await loaded?.release();
  }
}

/** The folder of the corpus's page images, for documents "image": only a dense index over an image embedder embeds them. */
function imageDirFor(options: BuildIndexOptions, corpus: CorpusInput, embedder: TextEmbedder | undefined): string {
  if (!embedder) throw new InputError(`index build: documents "image" needs a dense index (hnsw or exact), not ${options.retriever}`);
  if (!isImageEmbedder(embedder)) {
    throw new InputError(`index build: documents "image" needs an embedder that embeds images (clip, or openai against an image embedding server); ${options.embedder?.name ?? 'the given embedder'} embeds text only`);
  }
  return corpusImageDir(corpus);
}

/** The graph's params: the library's defaults under the options given. */
function hnswParams(options: BuildIndexOptions, space: HnswParams['space']): HnswParams {
  return {
    space,
    ...graphDefaults(options.graphLibrary),
    ...(options.M !== undefined && { M: options.M }),
    ...(options.efConstruction !== undefined && { efConstruction: options.efConstruction }),
    efSearch: options.efSearch ?? DEFAULT_HNSW.efSearch,
    randomSeed: options.randomSeed ?? DEFAULT_HNSW.randomSeed,
    library: options.graphLibrary ?? 'hnswlib',
    ...(options.graphLibrary === 'usearch' && { quantization: options.quantization ?? 'i8' }),
  };
}

/** A graph built on its own thread while a remote embedder embeds, and the sample it holds out. */
interface StreamedGraph { build: StreamedGraphBuild; heldOut: number[] }

/** Starts the graph fed while the batches are embedded; undefined where the library builds only from the store. */
async function startStreamedGraph(hnsw: HnswParams, dimension: number, planned: number, options: BuildIndexOptions): Promise<StreamedGraph | undefined> {
  const library = await graphLibrary(hnsw.library);
  if (!library.startBuild) return undefined;
  const heldOut = heldOutSample(planned, options.tune);
  const build = await library.startBuild(dimension, hnsw, join(options.out, library.file), { capacity: planned, heldOut });
  return { build, heldOut };
}

/**
 * Builds the graph with efSearch tuned on a sample held out of it until measured, then added (see
 * tuneEfSearch): `stream` is finished where it holds every stored vector in label order, else aborted
 * and the graph built again from the store. Returns the params with their tuning and the seconds it took.
 */
async function buildTunedGraph(store: ChunkStore, stream: StreamedGraph | undefined, planned: number, hnsw: HnswParams, dimension: number, options: BuildIndexOptions): Promise<{ tuned?: HnswParams; tuneSeconds: number }> {
  await options.onPhase?.('graph');
  const library = await graphLibrary(hnsw.library);
  const heldOut = heldOutSample(store.countVectors(), options.tune);
  let tuned: HnswParams | undefined;
  let tuneSeconds = 0;
  const tune = async (graph: TunableGraph) => {
    const tuneStarted = Date.now();
    await options.onPhase?.('tune');
    const exact = new ExactSearch(store, dimension, hnsw.space);
    try {
      const tuning = await tuneEfSearch(graph, exact, store, { ...options.tune, heldOut, ...(options.efSearch !== undefined && { fixed: options.efSearch }) });
      tuned = { ...hnsw, efSearch: tuning.efSearch, tuning };
    } finally {
      await exact.close();
    }
    tuneSeconds = (Date.now() - tuneStarted) / 1000;
  };
  // A corpus holding another count of chunks than its manifest says gives another held-out sample.
  if (stream && store.countVectors() === planned && JSON.stringify(stream.heldOut) === JSON.stringify(heldOut)) {
    await stream.build.finish(store, tune);
  } else {
    await stream?.build.abort();
    // Built from the stored vectors (no re-embedding) and written atomically.
    const progress = createProgress({ label: `hnsw (${library.name})`, total: store.countVectors(), unit: 'vectors', ...options.progress });
    let reported = 0;
    try {
      await library.build(store, dimension, hnsw, join(options.out, library.file), {
        signal: options.signal,
        heldOut,
        beforeHeldOut: tune,
        onAdded: (added) => {
          progress.tick(added - reported);
          reported = added;
        },
      });
    } finally {
      progress.stop();
    }
  }
  return { tuned, tuneSeconds };
}

/** The settings that must agree between an interrupted build and its resumption. */
function buildSettings(manifest: IndexManifest): unknown {
  const { kind, corpus, embedder, hnsw, bm25, vectorEncoding } = manifest;
  return {
    kind,
    contentHash: corpus.contentHash,
    identity: embedder?.identity,
    fingerprint: embedder?.fingerprint,
    space: embedder?.space,
    passage: embedder?.passage,
    ...(embedder?.documents && { documents: embedder.documents }),
    hnsw,
    bm25,
    vectorEncoding,
  };
}

interface StoreOptions {
  embedder?: TextEmbedder;
  dimension?: number;
  passage: 'title+text' | 'text';
  /** Set for documents "image": the folder the chunks' page images are in; each chunk's image is embedded instead of its text. */
  imageDir?: string;
  batchSize: number;
  /** Batches being embedded at once (1: each is embedded, then stored, before the next starts). */
  window: number;
  /** A graph fed each stored batch (and first the vectors an interrupted build stored). */
  graph?: StreamedGraphBuild;
  signal?: AbortSignal;
  onBatchStored?: (stored: number) => void | Promise<void>;
  progress?: BuildIndexOptions['progress'];
}

/** Rows read from the store per block when a resumed build feeds its stored vectors to a streamed graph. */
const CATCH_UP_ROWS = 1024;

/**
 * Appends the corpus's chunks after those already stored. Up to `window` batches are being embedded
 * while the oldest is stored — in corpus order, one transaction each — and then handed to the graph,
 * if one is fed. A failure or an interruption keeps every batch stored so far (the in-flight ones are
 * embedded again on resume).
 */
async function storeChunks(
  store: ChunkStore,
  chunks: AsyncGenerator<Chunk>,
  chunksPath: string,
  total: number,
  options: StoreOptions,
): Promise<void> {
  const already = store.count();
  const { embedder, graph, dimension } = options;
  const label = embedder ? (graph ? 'embed+store+hnsw' : 'embed+store') : 'store';
  const progress = createProgress({ label, total: Math.max(0, total - already), unit: 'chunks', ...options.progress });
  // A resumed build's graph starts with the vectors stored before: fed from the store while the first batches are embedded.
  const caughtUp = graph && dimension ? feedStored(store, graph, dimension, already) : Promise.resolve();
  caughtUp.catch(() => {});
  const pending: { batch: Chunk[]; vectors?: Promise<number[][]> }[] = [];
  let position = already;
  const embed = (batch: Chunk[]) => {
    if (!embedder) return undefined;
    const first = position;
    position += batch.length;
    const { imageDir } = options;
    const vectors = imageDir
      ? (async () => {
          const images: PageImageRef[] = batch.map((chunk, i) => chunkPageImage(chunk, imageDir, `${chunksPath}: line ${first + 1 + i}`));
          return (embedder as ImageEmbedder).embedImages(images);
        })()
      : embedder.embedDocuments(batch.map((chunk) => passageText(chunk, options.passage)));
    // Awaited in order below; a batch still in flight when an earlier one fails must not go unhandled.
    vectors.catch(() => {});
    return vectors;
  };
  const storeOldest = async () => {
    const { batch, vectors: embedding } = pending.shift()!;
    const raw = embedding ? checkDimensions(await embedding, batch, dimension) : undefined;
    const blobs = raw?.map((vector) => encodeVector(vector, store.vectorEncoding));
    const firstLabel = store.count();
    store.appendEncoded(batch, blobs, (i) => `${chunksPath}: chunk ${firstLabel + 1 + i}`);
    if (graph && blobs && dimension) {
      // The graph gets the vectors as stored (f16 by default), as a graph built from the store would.
      const rows = new Float32Array(blobs.length * dimension);
      blobs.forEach((blob, i) => decodeVectorInto(blob, store.vectorEncoding, dimension, rows, i * dimension));
      await caughtUp;
      await graph.add(firstLabel, rows);
    }
    progress.tick(batch.length);
    await options.onBatchStored?.(store.count());
  };
  try {
    for await (const batch of chunkBatchesAfter(chunks, already, options.batchSize)) {
      options.signal?.throwIfAborted();
      pending.push({ batch, vectors: embed(batch) });
      if (pending.length >= options.window) await storeOldest();
    }
    while (pending.length > 0) {
      options.signal?.throwIfAborted();
      await storeOldest();
    }
    await caughtUp;
  } finally {
    progress.stop();
  }
}

/** Feeds labels [0, count) from the store to a streamed graph, a block at a time. */
async function feedStored(store: ChunkStore, graph: StreamedGraphBuild, dimension: number, count: number): Promise<void> {
  for (let start = 0; start < count; start += CATCH_UP_ROWS) {
    const rows = Math.min(CATCH_UP_ROWS, count - start);
    const block = new Float32Array(rows * dimension);
    store.readVectorBlock(start, rows, dimension, block);
    await graph.add(start, block);
  }
}
