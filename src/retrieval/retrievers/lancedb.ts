import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { Retriever, RetrievedChunk } from '../types.js';
import type { LanceDbParams } from './lancedbSchema.js';
import type { Table } from '@lancedb/lancedb';
import { ConfigError, DataFileError, InputError } from '../../errors.js';
import { requireCompleteIndexManifest } from '../../runFiles/indexManifest.js';
import { queryEmbedderFor } from '../../index/queryEmbedder.js';
import { CHUNK_COLUMNS, documentFilterSql, openLanceTable } from '../../index/lancedb/table.js';
import { embeddingRelevance } from '../relevance.js';

interface ResultRow {
  label: number;
  id: string;
  docId: string;
  title: string;
  text: string;
  meta: string;
  _distance: number;
}

/**
 * Dense retrieval from a `lancedb` index: IVF-PQ search refined exactly when the index has one, else
 * exhaustive; a document's rows exactly (B-tree prefilter). Score = 1 − LanceDB's dot or cosine distance.
 */
export const lancedbRetriever: Pick<RegistryEntry<LanceDbParams, Retriever, RetrieverContext>, 'create'> = {
  async create(params, context) {
    const manifest = await requireCompleteIndexManifest(params.index);
    const settings = manifest.lancedb;
    if (manifest.kind !== 'lancedb' || !settings) {
      throw new ConfigError(`${params.index}: retriever lancedb needs a lancedb index, this one is ${manifest.kind}`);
    }
    const { embedder, release } = await queryEmbedderFor(params.index, manifest, params.embedder ?? context.embedder);
    let table: Table;
    try {
      table = await openLanceTable(params.index, settings);
    } catch (error) {
      await release();
      throw new DataFileError(`${params.index}: cannot open LanceDB table "${settings.table}" at ${settings.uri} (${(error as Error).message})`);
    }
    const nprobes = params.nprobes ?? settings.nprobes;
    const refineFactor = params.refineFactor ?? settings.refineFactor;
    return {
      name: 'lancedb',
      async retrieve(query, k) {
        const vector = await embedder.embedQuery(query.text);
        let search = table.vectorSearch(vector).distanceType(settings.distance).select([...CHUNK_COLUMNS, '_distance']).limit(k);
        if (query.docId) {
          const filter = documentFilterSql(query.docId);
          if ((await table.countRows(filter)) === 0) throw new InputError(`${params.index}: no chunks of document "${query.docId}" in this index`);
          // A document has few rows: rank them all exactly rather than probing partitions for them.
          search = search.where(filter).bypassVectorIndex();
        } else if (settings.vectorIndex === 'ivf-pq') {
          search = search.nprobes(nprobes).refineFactor(refineFactor);
        }
        const rows = (await search.toArray()) as ResultRow[];
        return rows
          .map((row) => ({ row, score: 1 - row._distance }))
          .sort((a, b) => b.score - a.score || a.row.label - b.row.label)
          .map(({ row, score }, i): RetrievedChunk => ({
            id: row.id,
            docId: row.docId,
            title: row.title,
            text: row.text,
            meta: JSON.parse(row.meta) as Record<string, unknown>,
            score,
            rank: i + 1,
          }));
      },
      relevance: embeddingRelevance(async () => embedder),
      describe: () => ({
        name: 'lancedb',
        index: params.index,
        lancedb: { ...settings, nprobes, refineFactor },
        embedder: manifest.embedder?.identity,
        corpusHash: manifest.corpus.contentHash,
      }),
      async close() {
        table.close();
        await release();
      },
    };
  },
};
