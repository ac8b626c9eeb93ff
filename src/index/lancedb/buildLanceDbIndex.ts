import { Index, type Table } from '@lancedb/lancedb';
import type { Chunk } from '../../runFiles/corpusFiles.js';
import type { TextEmbedder } from '../../embedding/types.js';
import { InputError } from '../../errors.js';
import { createProgress } from '../../progress/progress.js';
import { buildEmbedder, checkDimensions, chunkBatchesAfter, plannedIndexManifest, type BuildIndexOptions } from '../buildOptions.js';
import { openCorpusInput } from '../corpusInput.js';
import { prepareIndexOutDir } from '../outDir.js';
import { type IndexManifest, type LanceDbParams, writeIndexManifest } from '../../runFiles/indexManifest.js';
import { passageText } from '../passageText.js';
import { DEFAULT_LANCEDB, LANCEDB_IVF_PQ_MIN_ROWS } from '../defaults.js';
import { chunkRows, chunkTableSchema, connectLance } from './table.js';


/**
 * Builds a `lancedb` index: chunks and vectors appended to a LanceDB table one batch per `add` (each
 * a commit: the `--resume` checkpoint), then compaction, B-tree indexes for document scope and, for
 * large tables, an IVF-PQ vector index; memory holds one batch and the ids, not texts or vectors.
 */
export async function buildLanceDbIndex(options: BuildIndexOptions): Promise<IndexManifest> {
  const started = Date.now();
  const corpus = await openCorpusInput(options.corpusDir);
  const { embedder, release } = await buildEmbedder(options);
  try {
    const identity = await embedder.identity();
    const conventions = await embedder.conventionSources?.();
    const space = identity.normalize ? ('ip' as const) : ('cosine' as const);
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
    let manifest = plannedIndexManifest(corpus, options, {
      embedder: { identity, ...(options.embedder && { spec: options.embedder }), ...(conventions && { conventions }), space, passage },
      lancedb,
    });

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
    await release();
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
  const progress = createProgress({ label: 'embed+store', total: Math.max(0, total - stored), unit: 'chunks', ...options.progress });
  const documents = new Set<string>();
  const ids = new Set<string>();
  const checkUnique = (chunk: Chunk, line: number) => {
    if (ids.has(chunk.id)) throw new InputError(`${chunksPath}: chunk ${line}: duplicate chunk id "${chunk.id}"`);
    ids.add(chunk.id);
    documents.add(chunk.docId);
  };
  try {
    for await (const batch of chunkBatchesAfter(chunks, stored, options.batchSize ?? 64, checkUnique)) {
      options.signal?.throwIfAborted();
      const raw = checkDimensions(await embedder.embedDocuments(batch.map((chunk) => passageText(chunk, passage))), batch, dimension);
      await table.add(chunkRows(batch, raw.map((vector) => Float32Array.from(vector)), stored));
      stored += batch.length;
      progress.tick(batch.length);
      await options.onBatchStored?.(stored);
    }
  } finally {
    progress.stop();
  }
  return documents.size;
}
