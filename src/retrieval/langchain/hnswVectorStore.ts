import { Document, type DocumentInterface } from '@langchain/core/documents';
import { VectorStore } from '@langchain/core/vectorstores';
import type { Chunk } from '../../runFiles/corpusFiles.js';
import type { TextEmbedder } from '../../embedding/types.js';
import { InputError } from '../../errors.js';
import { appendChunks } from '../../index/appendChunks.js';
import { distanceToScore } from '../../index/hnswGraph.js';
import { createEmbedder } from '../../embedding/registry.js';
import { requireCompleteIndexManifest } from '../../runFiles/indexManifest.js';
import { openIndex, type OpenedIndex } from '../../index/openIndex.js';
import { passageText } from '../../index/passageText.js';
import type { Scored } from '../../index/topK.js';
import { documentLabels } from '../documentScope.js';
import { documentToChunk } from './documentChunk.js';
import { chunkToDocument } from './langchainRetriever.js';

/** Restricts a search to one document's chunks (exact search over its stored vectors). */
export interface HnswVectorStoreFilter {
  docId?: string;
}

/**
 * A hisrag HNSW index directory as a LangChain `VectorStore`: similarity search returns Documents with
 * the retriever adapter's metadata; `addDocuments`/`addVectors` append to the index (`documentToChunk`).
 */
export class HisragHnswVectorStore extends VectorStore {
  declare FilterType: HnswVectorStoreFilter;

  private constructor(
    private readonly embedder: TextEmbedder,
    readonly dir: string,
    private index: OpenedIndex,
    private readonly ownsEmbedder: boolean,
  ) {
    super(embedder, { dir });
  }

  /** Opens an hnsw index; without an embedder, the one recorded in the manifest is created (and disposed on close). */
  static async open(dir: string, embedder?: TextEmbedder): Promise<HisragHnswVectorStore> {
    const manifest = await requireCompleteIndexManifest(dir);
    if (manifest.kind !== 'hnsw') throw new InputError(`${dir}: not an hnsw index (kind ${manifest.kind})`);
    const spec = manifest.embedder?.spec;
    if (!embedder && !spec) throw new InputError(`${dir}: the index records no embedder spec; pass an embedder`);
    const instance = embedder ?? (await createEmbedder(spec!));
    try {
      return new HisragHnswVectorStore(instance, dir, await openIndex(dir, { embedder: instance }), !embedder);
    } catch (error) {
      if (!embedder) await instance.dispose();
      throw error;
    }
  }

  _vectorstoreType(): string {
    return 'hisrag-hnsw';
  }

  async addDocuments(documents: DocumentInterface[]): Promise<string[]> {
    const chunks = documents.map(documentToChunk);
    const passage = this.index.manifest.embedder?.passage ?? 'title+text';
    const vectors = await this.embedder.embedDocuments(chunks.map((chunk) => passageText(chunk, passage)));
    return this.append(chunks, vectors);
  }

  async addVectors(vectors: number[][], documents: DocumentInterface[]): Promise<string[]> {
    return this.append(documents.map(documentToChunk), vectors);
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: HnswVectorStoreFilter): Promise<[Document, number][]> {
    let ranked: Scored[];
    if (filter?.docId) {
      ranked = this.index.exact().search(query, k, documentLabels(this.index.store, filter.docId, this.dir));
    } else {
      const graph = this.index.hnsw();
      const n = Math.min(k, graph.getCurrentCount());
      if (n === 0) return [];
      graph.setEf(Math.max(this.index.manifest.hnsw?.efSearch ?? n, n));
      const { neighbors, distances } = graph.searchKnn(query, n);
      ranked = neighbors.map((label, i) => ({ label, score: distanceToScore(distances[i]!) })).sort((a, b) => b.score - a.score);
    }
    return this.index.store.byLabels(ranked.map((hit) => hit.label)).map(({ label: _label, ...chunk }, i) => {
      const score = ranked[i]!.score;
      return [chunkToDocument({ ...chunk, score, rank: i + 1 }), score];
    });
  }

  async close(): Promise<void> {
    await this.index.close();
    if (this.ownsEmbedder) await this.embedder.dispose();
  }

  private async append(chunks: Chunk[], vectors: number[][]): Promise<string[]> {
    // The open index reads through a read-only connection; reopen it to see the added chunks.
    await this.index.close();
    try {
      await appendChunks(this.dir, chunks, { vectors });
    } finally {
      this.index = await openIndex(this.dir, { embedder: this.embedder });
    }
    return chunks.map((chunk) => chunk.id);
  }
}
