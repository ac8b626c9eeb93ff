import type { Embeddings } from '@langchain/core/embeddings';
import type { EmbedderIdentity } from '../runFiles/indexManifest.js';
import type { PageImageRef } from '../runFiles/pageImage.js';

/**
 * hisrag's embedder: a LangChain `Embeddings` (embedDocuments / embedQuery — queries get the
 * query prefix, documents the document prefix) that also states its identity and can be released.
 */
export interface TextEmbedder extends Embeddings {
  identity(): Promise<EmbedderIdentity>;
  /** Many queries in one batched call, each with the query prefix (what `embedQuery` does one at a time). */
  embedQueries?(queries: string[]): Promise<number[][]>;
  /** Where each convention (pooling, normalisation, prefixes) came from: config, preset, model files or default. */
  conventionSources?(): Promise<Record<string, string>>;
  /**
   * Told the vector width an index recorded, so that an embedder that would otherwise ask its server
   * (one probe request) need not; vectors of another width are still refused.
   */
  adoptDimension?(dimension: number): void;
  /**
   * What identifies the weights behind the vectors, beyond the identity's model name: a content hash of
   * a local model's files (`sha256:…`), or the served model's name and dimension for a remote one.
   * Index manifests record it and refuse an embedder whose fingerprint differs.
   */
  fingerprint?(): Promise<string>;
  /**
   * A key that changes whenever the vectors would, known without loading the model (a cache answers
   * before it loads); only for float32 vectors (what caches store); undefined when it cannot be known.
   */
  vectorKey?(): Promise<string | undefined>;
  /**
   * Set by embedders whose model runs elsewhere (a server, or a pool of replicas): nothing of the model
   * lives in this process, so an index build keeps `concurrency` batches in flight and inserts into the
   * graph while they are embedded, instead of releasing the embedder first (see buildIndex).
   */
  readonly remote?: { concurrency: number };
  dispose(): Promise<void>;
}

/**
 * An embedder whose documents may be page images (a CLIP-family dual encoder, or a server embedding
 * images): queries stay text (`embedQuery`, through the text tower), documents are the pages' scans,
 * in the same vector space. Vectors come back in input order.
 */
export interface ImageEmbedder extends TextEmbedder {
  embedImages(images: PageImageRef[]): Promise<number[][]>;
  /** What else changes an image's vector besides its bytes and the identity (a server's image prompt, a pixel bound): part of cache keys. */
  imageVariant?(): string;
}

/** True for an embedder that can embed page images (a cache in front of one answers for it). */
export function isImageEmbedder(embedder: TextEmbedder): embedder is ImageEmbedder {
  return typeof (embedder as Partial<ImageEmbedder>).embedImages === 'function';
}
