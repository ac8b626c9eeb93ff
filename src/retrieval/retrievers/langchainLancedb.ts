import type { RetrieverContext } from '../retrieverContext.js';
import { langchainLancedbSchema, type LangchainLancedbParams } from './langchainLancedbSchema.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Table } from '@lancedb/lancedb';
import { LanceDB } from '@langchain/community/vectorstores/lancedb';
import type { DocumentInterface } from '@langchain/core/documents';
import { ConfigError } from '../../errors.js';
import { chunkTableSchema, openLanceTable } from '../../index/lancedb/table.js';
import { requireCompleteIndexManifest } from '../../runFiles/indexManifest.js';
import { queryEmbedderFor } from '../../index/queryEmbedder.js';
import { fromLangChain } from '../langchain/fromLangChain.js';
import { indexDocuments } from '../langchain/indexDocuments.js';


/**
 * `@langchain/community`'s LanceDB store as a hisrag retriever. That store searches with LanceDB's
 * default L2 distance, reports no score and takes no filter: the score here is derived from the
 * `_distance` column (1 − d/2 = cosine similarity on unit vectors, −d otherwise), and document-scoped
 * queries are refused (use hisrag's `lancedb` retriever, which filters by document).
 */
export const langchainLancedbRetriever = fromLangChain(
  langchainLancedbSchema.name,
  async (params: LangchainLancedbParams, context: RetrieverContext) => {
    const manifest = await requireCompleteIndexManifest(params.index);
    if (!manifest.embedder) throw new ConfigError(`${params.index}: langchain-lancedb needs a dense index (hnsw, exact or lancedb), this one is ${manifest.kind}`);
    const { embedder, release } = await queryEmbedderFor(params.index, manifest, params.embedder ?? context.embedder);
    let temporary: string | undefined;
    let table: Table | undefined;
    const cleanUp = async () => {
      table?.close();
      await release();
      if (temporary) await rm(temporary, { recursive: true, force: true });
    };
    try {
      if (manifest.kind === 'lancedb' && manifest.lancedb) {
        table = await openLanceTable(params.index, manifest.lancedb);
      } else {
        const uri = params.uri ?? (temporary = await mkdtemp(join(tmpdir(), 'hisrag-langchain-lancedb-')));
        const db = await connect(uri);
        if ((await db.tableNames()).includes(params.table)) {
          table = await db.openTable(params.table);
        } else {
          table = await db.createEmptyTable(params.table, chunkTableSchema(manifest.embedder.identity.dimension));
          const index = await context.openIndex(params.index, { embedder });
          try {
            const store = new LanceDB(embedder, { table });
            for (const batch of indexDocuments(index)) await store.addVectors(batch.vectors, batch.documents);
          } finally {
            await index.close();
          }
        }
      }
    } catch (error) {
      await cleanUp();
      throw error;
    }
    const normalized = manifest.embedder.identity.normalize;
    const opened = table;
    return {
      source: new LanceDB(embedder, { table: opened }),
      score: (_reported: number, document: DocumentInterface) => {
        const distance = Number(document.metadata._distance);
        return normalized ? 1 - distance / 2 : -distance;
      },
      describe: () => ({
        index: params.index,
        table: manifest.kind === 'lancedb' ? manifest.lancedb : { uri: params.uri ?? 'temporary', table: params.table },
        embedder: manifest.embedder?.identity,
        corpusHash: manifest.corpus.contentHash,
      }),
      close: cleanUp,
    };
  },
  langchainLancedbSchema,
);
