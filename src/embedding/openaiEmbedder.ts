import { BatchEmbeddings } from './batchEmbeddings.js';
import OpenAI from 'openai';
import { ConfigError, DataFileError, parseWith } from '../errors.js';
import type { ImageEmbedder } from './types.js';
import type { EmbedderIdentity } from '../runFiles/indexManifest.js';
import type { PageImageRef } from '../runFiles/pageImage.js';
import { describePageImage } from '../corpus/pageImageFile.js';
import { pageImageDataUrl } from './pageImageBytes.js';
import { CachedEmbedder } from './cachedEmbedder.js';
import { ReplicaPool, type Replica } from './replicaPool.js';
import { endpointRateLimiter, rateObservingFetch, type EndpointRateLimiter } from '../endpoints/rateLimit.js';
import { estimateTokens } from '../text/tokenCounter.js';
import { resolveConventions, type ResolvedConventions } from './conventions.js';
import { OpenAIEmbedderParamsSchema, type OpenAIEmbedderParams, type OpenAIEmbedderConfig } from './openaiEmbedderParams.js';

export { OpenAIEmbedderParamsSchema, type OpenAIEmbedderParams, type OpenAIEmbedderConfig } from './openaiEmbedderParams.js';

/** What a server with no preset and no stated conventions is recorded as: its pooling unknown, unit vectors, no prompts. */
const SERVER_FALLBACK_CONVENTIONS = { pooling: 'server', normalize: true, queryPrefix: '', documentPrefix: '' } as const;

/** A base64 embedding (little-endian float32) as numbers. */
function decodeBase64Vector(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) return [Number.NaN];
  // Copied into an aligned buffer (a Buffer's offset into its pool need not be a multiple of 4), then
  // into an array by a loop: Array.from of a Float32Array costs ~15× more (~40 µs for 1024 floats).
  const floats = new Float32Array(bytes.length / 4);
  new Uint8Array(floats.buffer).set(bytes);
  const vector = new Array<number>(floats.length);
  for (let i = 0; i < floats.length; i++) vector[i] = floats[i]!;
  return vector;
}

/** A response's vectors in input order, base64 ones decoded (unchecked: see `checked`). */
function vectorsOf(response: OpenAI.CreateEmbeddingResponse): unknown[] {
  const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
  return data.map(({ embedding }) => (typeof embedding === 'string' ? decodeBase64Vector(embedding) : (embedding as unknown)));
}

/**
 * Embeddings from an OpenAI-compatible server (or a pool of replicas, see ReplicaPool) with OpenAI's
 * SDK, `batchSize` texts a request. Newlines are kept: the vectors must equal the model's local ones.
 * The identity names the first URL only (`<baseURL[0]>#<model>`), so an index built over `[a, b]` is
 * queried with `[a]` or `[a, c]`: list the replica an index was built with first.
 */
export class OpenAIEmbedder extends BatchEmbeddings implements ImageEmbedder {
  readonly params: OpenAIEmbedderParams;
  /** The replicas' API roots, in config order. */
  readonly urls: string[];
  readonly pool: ReplicaPool<OpenAI>;
  readonly #pacing: EndpointRateLimiter;
  private dimension?: number;
  /** The conventions in force: the config's fields, else its preset, else SERVER_FALLBACK_CONVENTIONS. */
  readonly conventions: ResolvedConventions;

  constructor(config: OpenAIEmbedderConfig, env: NodeJS.ProcessEnv = process.env) {
    super({});
    this.params = parseWith(OpenAIEmbedderParamsSchema, config, (problems) => new ConfigError(problems), 'embedder');
    const { apiKeyEnv, baseURL, model, timeoutMs } = this.params;
    const apiKey = apiKeyEnv ? env[apiKeyEnv] : 'unused'; // local servers need none, the SDK wants one
    if (!apiKey) throw new ConfigError(`embedder.apiKeyEnv: environment variable ${apiKeyEnv} is not set`);
    this.dimension = this.params.dimension;
    // `server` pooling is only recorded: the fallback's type is wider than a local embedder's.
    this.conventions = resolveConventions(this.params, undefined, SERVER_FALLBACK_CONVENTIONS as unknown as ResolvedConventions['conventions']);
    this.urls = Array.isArray(baseURL) ? baseURL : [baseURL];
    // One pool is one endpoint for pacing, as for chat models: its replicas share the allowance.
    this.#pacing = endpointRateLimiter(this.urls.join(' | '), this.params.rateLimit ?? {});
    const fetchObserved = rateObservingFetch(this.#pacing);
    this.pool = new ReplicaPool(
      this.urls.map((url) => ({ url, client: new OpenAI({ apiKey, baseURL: url, timeout: timeoutMs, maxRetries: 0, fetch: fetchObserved }) })),
      { ...this.params, what: `embeddings server (model ${model})` },
    );
  }

  /** Nothing of the model lives in this process; an index build keeps the pool's requests in flight while it inserts. */
  get remote(): { concurrency: number } {
    return { concurrency: this.pool.concurrency };
  }

  private checked(vectors: unknown[], count: number, replica: Replica<OpenAI>): number[][] {
    const where = `embeddings server ${replica.url} (model ${this.params.model})`;
    if (vectors.length !== count) throw new DataFileError(`${where}: ${vectors.length} vectors for ${count} texts`);
    for (const [i, vector] of vectors.entries()) {
      if (!Array.isArray(vector) || vector.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
        throw new DataFileError(`${where}: vector ${i} is not a list of finite numbers`);
      }
      this.dimension ??= vector.length;
      if (vector.length !== this.dimension) {
        throw new DataFileError(`${where}: vector ${i} has ${vector.length} dimensions, expected ${this.dimension}`);
      }
    }
    return vectors as number[][];
  }

  /** One request: `texts` (at most `batchSize`) to one replica. */
  private async request(client: OpenAI, replica: Replica<OpenAI>, texts: string[]): Promise<number[][]> {
    const format = this.params.encodingFormat ?? 'base64';
    // encoding_format given explicitly: the SDK then returns the response as sent (base64 decoded here, once).
    const reservation = await this.#pacing.acquire(texts.reduce((n, t) => n + estimateTokens(t), 0));
    const response = await client.embeddings.create({ model: this.params.model, input: texts, encoding_format: format });
    this.#pacing.settle(reservation, response.usage?.total_tokens);
    return this.checked(vectorsOf(response), texts.length, replica);
  }

  /** One page image to one replica, as vLLM's chat-style embeddings request. */
  private async imageRequest(client: OpenAI, replica: Replica<OpenAI>, image: PageImageRef, url: string, pixels: number): Promise<number[]> {
    const format = this.params.encodingFormat ?? 'base64';
    const { imagePrompt, model } = this.params;
    const content = [{ type: 'image_url', image_url: { url } }, ...(imagePrompt !== undefined ? [{ type: 'text', text: imagePrompt }] : [])];
    // Paced by an estimate of a Qwen-VL-style count (one token per 28×28 pixels) until the server's usage settles it.
    const reservation = await this.#pacing.acquire(Math.ceil(pixels / 784) + (imagePrompt ? estimateTokens(imagePrompt) : 0));
    const response = await client.post<OpenAI.CreateEmbeddingResponse>('/embeddings', {
      body: { model, messages: [{ role: 'user', content }], encoding_format: format },
    });
    this.#pacing.settle(reservation, response.usage?.total_tokens);
    try {
      return this.checked(vectorsOf(response), 1, replica)[0]!;
    } catch (error) {
      throw new DataFileError(`${(error as Error).message} (for the page image of ${describePageImage(image)})`);
    }
  }

  /** What besides the bytes changes an image's vector here: part of the cache's image keys. */
  imageVariant(): string {
    const { imagePrompt, maxPixels } = this.params;
    return imagePrompt === undefined && maxPixels === undefined ? '' : JSON.stringify({ imagePrompt, maxPixels });
  }

  /** Page images, one request each, through the same pool (routing, retries, concurrency) and pacing as texts. */
  async embedImages(images: PageImageRef[]): Promise<number[][]> {
    return Promise.all(
      images.map(async (image) => {
        const { url, pixels } = await pageImageDataUrl(image, this.params.maxPixels);
        return this.pool.run((client, replica) => this.imageRequest(client, replica, image, url, pixels));
      }),
    );
  }

  /** The width an index recorded: no request needed to learn it (vectors of another width are still refused). */
  adoptDimension(dimension: number): void {
    this.dimension ??= dimension;
  }

  async conventionSources(): Promise<Record<string, string>> {
    return this.conventions.sources;
  }

  /** Without a configured or adopted dimension (an index build), one document is embedded to learn it. */
  async identity(): Promise<EmbedderIdentity> {
    if (this.dimension === undefined) await this.embedDocuments(['维度']);
    return { model: `${this.urls[0]}#${this.params.model}`, dimension: this.dimension!, ...this.conventions.conventions };
  }

  /** A remote model is known only by its served name and width (the server's weights cannot be hashed from here). */
  async fingerprint(): Promise<string> {
    const { dimension } = await this.identity();
    return `openai:${this.params.model}:${dimension}`;
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    const { documentPrefix } = this.conventions.conventions;
    return this.embedTexts(documentPrefix ? documents.map((text) => documentPrefix + text) : documents);
  }

  async embedQueries(queries: string[]): Promise<number[][]> {
    const { queryPrefix } = this.conventions.conventions;
    return this.embedTexts(queries.map((query) => queryPrefix + query));
  }

  /** Texts as given, `batchSize` a request. */
  private async embedTexts(documents: string[]): Promise<number[][]> {
    if (documents.length === 0) return [];
    const { batchSize } = this.params;
    const batches: string[][] = [];
    for (let start = 0; start < documents.length; start += batchSize) batches.push(documents.slice(start, start + batchSize));
    const results = await Promise.all(batches.map((batch) => this.pool.run((client, replica) => this.request(client, replica, batch))));
    return results.flat();
  }

  async dispose(): Promise<void> {}
}

/** Builds the embedder, wrapped in the on-disk cache when `cacheFile` is set. */
export function createOpenAIEmbedder(config: OpenAIEmbedderConfig): ImageEmbedder {
  const embedder = new OpenAIEmbedder(config);
  return embedder.params.cacheFile ? (new CachedEmbedder(embedder, embedder.params.cacheFile) as unknown as ImageEmbedder) : embedder;
}
