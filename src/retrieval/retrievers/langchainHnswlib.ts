import type { RetrieverContext } from '../retrieverContext.js';
import { langchainHnswlibSchema, type LangchainHnswlibParams } from './langchainHnswlibSchema.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HNSWLib } from '@langchain/community/vectorstores/hnswlib';
import type { DocumentInterface } from '@langchain/core/documents';
import { ConfigError } from '../../errors.js';
import { createEmbedder } from '../../embedding/registry.js';
import type { TextEmbedder } from '../../embedding/types.js';
import { fromLangChain } from '../langchain/fromLangChain.js';
import { indexDocuments } from '../langchain/indexDocuments.js';


/** Whether a document (a chunk) belongs to `docId`: its own document, or its parent (LongHisDoc books). */
function inDocument(docId: string): (document: DocumentInterface) => boolean {
  return (document) => document.metadata.docId === docId || document.metadata.parentId === docId;
}

/**
 * `@langchain/community`'s HNSWLib store (hnswlib-node in memory, the common LangChain.js setup) as a
 * hisrag retriever: built from a hisrag index's stored vectors, so the same vectors can be compared
 * under hisrag's HNSW and LangChain's; or loaded from a directory saved with `HNSWLib.save`.
 * Document scope uses HNSWLib's filter function. Score = 1 − hnswlib's ip/cosine distance.
 */
export const langchainHnswlibRetriever = fromLangChain(
  langchainHnswlibSchema.name,
  async (params: LangchainHnswlibParams, context: RetrieverContext) => {
    const saved = params.directory !== undefined && existsSync(join(params.directory, 'hnswlib.index'));
    const index = params.index ? await context.openIndex(params.index, { embedder: params.embedder ?? context.embedder }) : undefined;
    let owned: TextEmbedder | undefined;
    const release = async () => {
      await index?.close();
      await owned?.dispose();
    };
    try {
      if (index && !index.manifest.embedder) throw new ConfigError(`${params.index}: langchain-hnswlib needs a dense index (hnsw or exact), this one is ${index.manifest.kind}`);
      let embedder: TextEmbedder;
      if (index) embedder = await index.embedder();
      else if (params.embedder) embedder = owned = await createEmbedder(params.embedder, 'retriever.embedder');
      else if (context.embedder) embedder = context.embedder;
      else throw new ConfigError('retriever.embedder: langchain-hnswlib with only a directory needs an embedder spec');
      let store: HNSWLib;
      if (saved) {
        store = await HNSWLib.load(params.directory!, embedder);
      } else {
        const recorded = index!.manifest.embedder!;
        store = new HNSWLib(embedder, { space: recorded.space === 'ip' ? 'ip' : 'cosine', numDimensions: recorded.identity.dimension });
        for (const batch of indexDocuments(index!)) await store.addVectors(batch.vectors, batch.documents);
        if (params.directory) await store.save(params.directory);
      }
      if (params.efSearch !== undefined) store.index.setEf(params.efSearch);
      const count = store.index.getCurrentCount();
      return {
        source: store,
        score: 'distance' as const,
        documentFilter: inDocument,
        describe: () => ({
          index: params.index,
          directory: params.directory,
          space: store.args.space,
          count,
          efSearch: params.efSearch ?? 'hnswlib default (max(10, k))',
          embedder: index?.manifest.embedder?.identity,
          corpusHash: index?.manifest.corpus.contentHash,
        }),
        close: release,
      };
    } catch (error) {
      await release();
      throw error;
    }
  },
  langchainHnswlibSchema,
);
