import { Embeddings } from '@langchain/core/embeddings';
import { OpenAIEmbeddings } from '@langchain/openai';
import { z } from 'zod';
import { ConfigError, DataFileError } from '../errors.js';
import { formatZodIssues } from '../config/errors.js';
import type { EmbedderIdentity, TextEmbedder } from './types.js';
import { CachedEmbedder } from './cachedEmbedder.js';

/** Config of the `openai` embedder: any OpenAI-compatible `/v1/embeddings` server (TEI, vLLM, Infinity, `hisrag serve embeddings`). */
export const OpenAIEmbedderParamsSchema = z
  .object({
    /** API root, e.g. `http://127.0.0.1:8080/v1`. */
    baseURL: z.url(),
    /** Model name the server serves. */
    model: z.string().min(1),
    /** Name of the environment variable holding the API key (the key itself is never in config). */
    apiKeyEnv: z.string().min(1).optional(),
    /** Prepended by `embedQuery` only (the server cannot tell queries from documents). For bge models use BGE's instruction. */
    queryPrefix: z.string().default(''),
    /** What the served model does (recorded in the identity; the server decides). */
    pooling: z.enum(['cls', 'mean']).default('cls'),
    normalize: z.boolean().default(true),
    /** Vector width; asked of the server with one probe request when not given. */
    dimension: z.number().int().positive().optional(),
    /** Texts per request. */
    batchSize: z.number().int().positive().default(64),
    /** Requests in flight at once. */
    maxConcurrency: z.number().int().positive().default(4),
    /** Retries of a failed request, with exponential backoff. */
    maxRetries: z.number().int().nonnegative().default(6),
    timeoutMs: z.number().int().positive().default(120_000),
    /** Omit to use the SDK's default (base64 of little-endian float32). */
    encodingFormat: z.enum(['float', 'base64']).optional(),
    cacheFile: z.string().min(1).optional(),
  })
  .strict();
export type OpenAIEmbedderParams = z.output<typeof OpenAIEmbedderParamsSchema>;
export type OpenAIEmbedderConfig = z.input<typeof OpenAIEmbedderParamsSchema>;

/**
 * Embeddings from a remote OpenAI-compatible server through LangChain's `OpenAIEmbeddings`
 * (batching, bounded concurrency, retries with backoff). Newlines are kept: the vectors must
 * equal what the served model gives locally.
 */
export class OpenAIEmbedder extends Embeddings implements TextEmbedder {
  readonly params: OpenAIEmbedderParams;
  private readonly client: OpenAIEmbeddings;
  private dimension?: number;

  constructor(config: OpenAIEmbedderConfig, env: NodeJS.ProcessEnv = process.env) {
    super({});
    const parsed = OpenAIEmbedderParamsSchema.safeParse(config);
    if (!parsed.success) throw new ConfigError(formatZodIssues(parsed.error, 'embedder'));
    this.params = parsed.data;
    const { apiKeyEnv } = this.params;
    const apiKey = apiKeyEnv ? env[apiKeyEnv] : 'unused'; // local servers need none, the SDK wants one
    if (!apiKey) throw new ConfigError(`embedder.apiKeyEnv: environment variable ${apiKeyEnv} is not set`);
    this.dimension = this.params.dimension;
    this.client = new OpenAIEmbeddings({
      model: this.params.model,
      apiKey,
      configuration: { baseURL: this.params.baseURL },
      batchSize: this.params.batchSize,
      maxConcurrency: this.params.maxConcurrency,
      maxRetries: this.params.maxRetries,
      timeout: this.params.timeoutMs,
      stripNewLines: false,
      encodingFormat: this.params.encodingFormat,
    });
  }

  private checked(vectors: number[][], count: number): number[][] {
    const where = `embeddings server ${this.params.baseURL} (model ${this.params.model})`;
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
    return vectors;
  }

  async identity(): Promise<EmbedderIdentity> {
    if (this.dimension === undefined) await this.embedDocuments(['维度']);
    const { baseURL, model, pooling, normalize, queryPrefix } = this.params;
    return { model: `${baseURL}#${model}`, dimension: this.dimension!, pooling, normalize, queryPrefix };
  }

  /** A remote model is known only by its served name and width (the server's weights cannot be hashed from here). */
  async fingerprint(): Promise<string> {
    const { dimension } = await this.identity();
    return `openai:${this.params.model}:${dimension}`;
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    if (documents.length === 0) return [];
    return this.checked(await this.client.embedDocuments(documents), documents.length);
  }

  async embedQuery(query: string): Promise<number[]> {
    const [vector] = await this.embedDocuments([this.params.queryPrefix + query]);
    return vector!;
  }

  async dispose(): Promise<void> {}
}

/** Builds the embedder, wrapped in the on-disk cache when `cacheFile` is set. */
export function createOpenAIEmbedder(config: OpenAIEmbedderConfig): TextEmbedder {
  const embedder = new OpenAIEmbedder(config);
  return embedder.params.cacheFile ? new CachedEmbedder(embedder, embedder.params.cacheFile) : embedder;
}
