import { Embeddings } from '@langchain/core/embeddings';
import OpenAI from 'openai';
import { z } from 'zod';
import { ConfigError, DataFileError, parseWith } from '../errors.js';
import type { EmbedderIdentity, ImageEmbedder } from './types.js';
import type { PageImageRef } from '../corpus/pageImage.js';
import { describePageImage } from '../corpus/pageImageFile.js';
import { pageImageDataUrl } from './pageImageBytes.js';
import { CachedEmbedder } from './cachedEmbedder.js';
import { ReplicaPool, type Replica } from './replicaPool.js';
import { RateLimitSchema, endpointRateLimiter, rateObservingFetch, type EndpointRateLimiter } from '../endpoints/rateLimit.js';
import { estimateTokens } from '../text/tokenCounter.js';
import { EmbedderPresetSchema, resolveConventions, type ResolvedConventions } from './conventions.js';

/** What a server with no preset and no stated conventions is recorded as: its pooling unknown, unit vectors, no prompts. */
const SERVER_FALLBACK_CONVENTIONS = { pooling: 'server', normalize: true, queryPrefix: '', documentPrefix: '' } as const;

/** Config of the `openai` embedder: any OpenAI-compatible `/v1/embeddings` server (TEI, vLLM, Infinity, `hisrag serve embeddings`). */
export const OpenAIEmbedderParamsSchema = z
  .object({
    baseURL: z.union([z.url(), z.array(z.url()).min(1, { error: 'expected at least one replica URL' })]).describe('API root, e.g. `http://127.0.0.1:8080/v1`, or a list of replicas of one server (one TEI per GPU): each request goes to the replica with the fewest in flight; a failing one is drained and retried later'),
    model: z.string().min(1).describe('Model name the server serves'),
    apiKeyEnv: z.string().min(1).optional().describe('Name of the environment variable holding the API key (the key itself is never in config)'),
    preset: EmbedderPresetSchema.optional().describe('The served model\'s conventions (pooling, normalisation, prompts) as its model card states them; the fields below override it'),
    queryPrefix: z.string().optional().describe('Prepended by `embedQuery` only (the server cannot tell queries from documents). Unset: the preset\'s, else none'),
    documentPrefix: z.string().optional().describe('Prepended to every document embedded (never stored in chunk text). Unset: the preset\'s, else none'),
    pooling: z.enum(['cls', 'mean', 'last']).optional().describe('What the served model does (recorded in the identity; the server decides). Unset: the preset\'s, else recorded as `server`'),
    normalize: z.boolean().optional().describe('Whether the served vectors are unit length (recorded; dot product = cosine). Unset: the preset\'s, else true'),
    dimension: z.number().int().positive().optional().describe('Vector width; unset: an index\'s manifest gives it at query time, and an index build learns it from one request (a document, with the document prefix)'),
    batchSize: z.number().int().positive().default(64).describe('Texts per request'),
    maxConcurrency: z.number().int().positive().default(4).describe('Requests in flight at once, on each replica'),
    maxRetries: z.number().int().nonnegative().default(6).describe('Retries of a request while every replica fails, each after the soonest replica\'s cooldown'),
    retryBaseMs: z.number().int().positive().default(500).describe('Cooldown of a replica after a failure (connection refused, timeout, 5xx, 429), doubled with each failure in a row'),
    retryMaxMs: z.number().int().positive().default(30_000).describe('Longest cooldown of a replica in ms'),
    timeoutMs: z.number().int().positive().default(120_000).describe('A request with no reply after this many ms fails'),
    encodingFormat: z.enum(['float', 'base64']).optional().describe('Wire format of the vectors: base64 of little-endian float32 (the default, what OpenAI\'s SDK asks for) or JSON floats'),
    cacheFile: z.string().min(1).optional().describe('SQLite file caching vectors by (embedder, sha256 of text): a re-run embeds nothing twice'),
    // Tokens: the texts' estimate.
    rateLimit: RateLimitSchema.optional().describe('The provider\'s limits, paced evenly over the whole pool (shared with everything on the same URLs); without it the servers\' x-ratelimit-* headers and 429s set the pace'),
    // `imagePrompt` is the text beside each image (the model's document instruction); none when unset.
    imagePrompt: z.string().optional().describe('Page images (documents of an image index) go one a request as vLLM\'s chat-style embeddings take them (VLM2Vec, DSE-Qwen2-VL, GME): `messages: [{ role: \'user\', content: [image_url, text?] }]`; `imagePrompt` is the text part beside the…'),
    maxPixels: z.number().int().positive().optional().describe('Scans above this many pixels are scaled down (aspect kept) and sent as JPEG; unset: sent as they lie'),
  })
  .strict();
export type OpenAIEmbedderParams = z.output<typeof OpenAIEmbedderParamsSchema>;
export type OpenAIEmbedderConfig = z.input<typeof OpenAIEmbedderParamsSchema>;

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
export class OpenAIEmbedder extends Embeddings implements ImageEmbedder {
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

  async embedQuery(query: string): Promise<number[]> {
    const [vector] = await this.embedQueries([query]);
    return vector!;
  }

  async dispose(): Promise<void> {}
}

/** Builds the embedder, wrapped in the on-disk cache when `cacheFile` is set. */
export function createOpenAIEmbedder(config: OpenAIEmbedderConfig): ImageEmbedder {
  const embedder = new OpenAIEmbedder(config);
  return embedder.params.cacheFile ? (new CachedEmbedder(embedder, embedder.params.cacheFile) as unknown as ImageEmbedder) : embedder;
}
