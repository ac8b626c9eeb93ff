import { Index, type Table } from '@lancedb/lancedb';
import type { Chunk } from '../../chunking/types.js';
import type { TextEmbedder } from '../../embedding/types.js';
import { InputError } from '../../errors.js';
import { createProgress } from '../../progress/progress.js';
import { VERSION } from '../../version.js';
import type { BuildIndexOptions } from '../buildOptions.js';
import { openCorpusInput } from '../corpusInput.js';
import { embedderFromSpec } from '../indexEmbedder.js';
import { prepareIndexOutDir } from '../outDir.js';
import { INDEX_FORMAT_VERSION, writeIndexManifest, type IndexManifest } from '../manifest.js';
import { passageText } from '../passageText.js';
import { DEFAULT_LANCEDB, LANCEDB_IVF_PQ_MIN_ROWS } from '../defaults.js';
import type { LanceDbParams } from './params.js';
import { chunkRows, chunkTableSchema, connectLance } from './table.js';


/**
 * Builds a `lancedb` index: the corpus's chunks and their vectors are appended to a LanceDB table one
 * batch per `add` (each a LanceDB commit: the checkpoint — `--resume` skips the rows already stored and
 * embeds nothing twice); then the table is compacted, a B-tree index on `docId` is built for document
 * scope and, for large tables, an IVF-PQ vector index; `manifest.json` is written `complete` last.
 * Memory holds one batch and the chunk and document ids (duplicate check, counts), not texts or
 * vectors, so corpora larger than RAM index as well.
 */
export async function buildLanceDbIndex(options: BuildIndexOptions): Promise<IndexManifest> {
  const started = Date.now();
  const corpus = await openCorpusInput(options.corpusDir);
  let embedder = options.embedderInstance;
  let ownsEmbedder = false;
  if (!embedder) {
    if (!options.embedder) throw new InputError('index build: --embedder is required for a lancedb index');
    embedder = await embedderFromSpec(options.embedder);
    ownsEmbedder = true;
  }
  try {
    const identity = await embedder.identity();
    const space = identity.normalize ? 'ip' : 'cosine';
    const requested = options.lancedb ?? {};
    const rows = corpus.manifest.counts.chunksWritten;
    const vectorIndex = !requested.vectorIndex || requested.vectorIndex === 'auto' ? (rows >= LANCEDB_IVF_PQ_MIN_ROWS ? 'ivf-pq' : 'none') : requested.vectorIndex;
    const lancedb: LanceDbParams = {
      uri: requested.uri ?? DEFAULT_LANCEDB.uri,
      table: requested.table ?? DEFAULT_LANCEDB.table,
      distance: identity.normalize ? 'dot' : 'cosine',
      vectorIndex,
      ...(requested.numPartitions !== undefined && { numPartitions: requested.numPartitions }),
      ...(requested.numSubVectors !== undefined && { numSubVectors: requested.numSubVectors }),
      nprobes: requested.nprobes ?? DEFAULT_LANCEDB.nprobes,
      refineFactor: requested.refineFactor ?? DEFAULT_LANCEDB.refineFactor,
    };
    const passage = options.passage ?? 'title+text';
    let manifest: IndexManifest = {
      formatVersion: INDEX_FORMAT_VERSION,
      kind: 'lancedb',
      complete: false,
      corpus: { dir: corpus.dir, name: corpus.name, contentHash: corpus.manifest.contentHash },
      embedder: { identity, ...(options.embedder && { spec: options.embedder }), space, passage },
      lancedb,
      counts: { chunks: 0, documents: 0, vectors: 0, terms: 0 },
      timings: {},
      toolVersion: VERSION,
      createdAt: new Date().toISOString(),
      ...(options.inputs && { inputs: options.inputs }),
    };

    const existing = await prepareIndexOutDir(options.out, manifest, options.resume ?? false, buildSettings);
    if (existing?.complete) return existing;
    if (existing) manifest = { ...manifest, createdAt: existing.createdAt };
    await writeIndexManifest(options.out, manifest);

    const db = await connectLance(options.out, lancedb);
    const names = await db.tableNames();
    if (names.includes(lancedb.table) && !existing) {
      throw new InputError(`${options.out}: table "${lancedb.table}" already exists at ${lancedb.uri}; drop it or choose another --lancedb-table`);
    }
    const table = names.includes(lancedb.table)
      ? await db.openTable(lancedb.table)
      : await db.createEmptyTable(lancedb.table, chunkTableSchema(identity.dimension));
    try {
      const timings: Record<string, number> = {};
      let phase = Date.now();
      const documents = await storeRows(table, corpus.chunks(), corpus.chunksPath, rows, embedder, identity.dimension, passage, options);
      timings.storeSeconds = (Date.now() - phase) / 1000;

      phase = Date.now();
      const stored = await table.countRows();
      // Many small commits leave many fragments; one compaction makes scans and index training fast.
      await table.optimize();
      await table.createIndex('docId', { config: Index.btree(), replace: true });
      await table.createIndex('parentId', { config: Index.btree(), replace: true });
      if (lancedb.vectorIndex === 'ivf-pq') {
        await table.createIndex('vector', {
          replace: true,
          config: Index.ivfPq({
            distanceType: lancedb.distance,
            ...(lancedb.numPartitions !== undefined && { numPartitions: lancedb.numPartitions }),
            ...(lancedb.numSubVectors !== undefined && { numSubVectors: lancedb.numSubVectors }),
          }),
        });
      }
      // Compaction and indexing leave the superseded versions' files behind (LanceDB keeps them for
      // time travel): drop them so the index holds one copy of the data.
      await table.optimize({ cleanupOlderThan: new Date() });
      timings.lancedbIndexSeconds = (Date.now() - phase) / 1000;
      timings.totalSeconds = (Date.now() - started) / 1000;
      manifest = {
        ...manifest,
        complete: true,
        counts: { chunks: stored, documents, vectors: stored, terms: 0 },
        timings,
        completedAt: new Date().toISOString(),
      };
    } finally {
      table.close();
      db.close();
    }
    await writeIndexManifest(options.out, manifest);
    return manifest;
  } finally {
    if (ownsEmbedder) await embedder.dispose();
  }
}

/** The settings that must agree between an interrupted build and its resumption. */
function buildSettings(manifest: IndexManifest): unknown {
  const { kind, corpus, embedder, lancedb } = manifest;
  return { kind, contentHash: corpus.contentHash, identity: embedder?.identity, passage: embedder?.passage, lancedb };
}

/** Appends the corpus's chunks after the rows already stored, embedding each batch first; returns the document count. */
async function storeRows(
  table: Table,
  chunks: AsyncGenerator<Chunk>,
  chunksPath: string,
  total: number,
  embedder: TextEmbedder,
  dimension: number,
  passage: 'title+text' | 'text',
  options: BuildIndexOptions,
): Promise<number> {
  // Labels are 0..n-1 in corpus order and each add commits a whole batch, so the row count is the resume point.
  let stored = await table.countRows();
  const already = stored;
  const progress = createProgress({ label: 'embed+store', total: Math.max(0, total - already), unit: 'chunks', ...options.progress });
  const documents = new Set<string>();
  const ids = new Set<string>();
  let seen = 0;
  let batch: Chunk[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    options.signal?.throwIfAborted();
    const raw = await embedder.embedDocuments(batch.map((chunk) => passageText(chunk, passage)));
    const vectors = raw.map((vector, i) => {
      if (vector.length !== dimension) {
        throw new Error(`embedder returned ${vector.length} dimensions for chunk "${batch[i]!.id}", expected ${dimension}`);
      }
      return Float32Array.from(vector);
    });
    await table.add(chunkRows(batch, vectors, stored));
    stored += batch.length;
    progress.tick(batch.length);
    batch = [];
    await options.onBatchStored?.(stored);
  };
  try {
    for await (const chunk of chunks) {
      const line = ++seen;
      if (ids.has(chunk.id)) throw new InputError(`${chunksPath}: chunk ${line}: duplicate chunk id "${chunk.id}"`);
      ids.add(chunk.id);
      documents.add(chunk.docId);
      // Resume: the corpus is the same (content hash checked), so the first `already` chunks are stored.
      if (line <= already) continue;
      batch.push(chunk);
      if (batch.length >= (options.batchSize ?? 64)) await flush();
    }
    await flush();
  } finally {
    progress.stop();
  }
  return documents.size;
}
