import pLimit from 'p-limit';
import pRetry, { AbortError } from 'p-retry';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { RerankError, type Reranker, type RerankOutcome } from './types.js';

/** Config of the `remote` reranker: a GPU server speaking TEI's `/rerank` or the Jina/Cohere `/v1/rerank`. */
export const RemoteRerankerParamsSchema = z
  .object({
    baseURL: z.url().describe('Server root, e.g. `http://127.0.0.1:8080` (TEI, `hisrag serve rerank`) or `http://gpu:8000` (vLLM, Infinity)'),
    protocol: z.enum(['tei', 'v1']).default('tei').describe('`tei`: POST <baseURL>/rerank {query, texts} → [{index, score}]; `v1`: POST <baseURL>/v1/rerank {model, query, documents} → {results: [{index, relevance_score}]} (Jina, Cohere, vLLM, Infinity)'),
    model: z.string().min(1).optional().describe('Model name sent with `v1` requests (TEI serves one model and ignores it)'),
    apiKeyEnv: z.string().min(1).optional().describe('Name of the environment variable holding the API key (sent as a Bearer token); never the key itself'),
    batchSize: z.number().int().positive().default(32).describe('Passages per request; a query\'s candidates are split over several requests when more'),
    maxConcurrency: z.number().int().positive().default(4).describe('Requests in flight at once'),
    maxRetries: z.number().int().nonnegative().default(6).describe('Retries of a failed request (network error, 429, 5xx), with exponential backoff'),
    timeoutMs: z.number().int().positive().default(120_000).describe('A request with no reply after this many ms fails (and is retried)'),
    retryDelayMs: z.number().int().nonnegative().default(500).describe('First backoff delay (doubles per retry)'),
  })
  .strict()
  .refine((p) => p.protocol !== 'v1' || p.model !== undefined, { message: 'the v1 protocol needs the model name', path: ['model'] });
export type RemoteRerankerParams = z.output<typeof RemoteRerankerParamsSchema>;

const TeiReplySchema = z.array(z.object({ index: z.number().int().nonnegative(), score: z.number() }));
const V1ReplySchema = z.object({ results: z.array(z.object({ index: z.number().int().nonnegative(), relevance_score: z.number() })) });

/** A status worth retrying: overloaded or failing server. Other 4xx mean the request is wrong. */
const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * Reranks through a remote server, with batching, bounded concurrency and retries like the
 * remote embedder. Every reply is validated: one finite score per passage sent, or the call fails.
 */
export function createRemoteReranker(params: RemoteRerankerParams, env: NodeJS.ProcessEnv = process.env): Reranker {
  const apiKey = params.apiKeyEnv ? env[params.apiKeyEnv] : undefined;
  if (params.apiKeyEnv && !apiKey) throw new ConfigError(`rerank.apiKeyEnv: environment variable ${params.apiKeyEnv} is not set`);
  const root = params.baseURL.replace(/\/+$/, '');
  const endpoint = params.protocol === 'tei' ? `${root}/rerank` : `${root}/v1/rerank`;
  const limit = pLimit(params.maxConcurrency);

  async function post(query: string, passages: string[]): Promise<number[]> {
    const body = params.protocol === 'tei'
      ? { query, texts: passages, raw_scores: false, truncate: true }
      : { model: params.model, query, documents: passages, top_n: passages.length, return_documents: false };
    const reply = await pRetry(
      async () => {
        let response: Response;
        try {
          response = await fetch(endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(params.timeoutMs),
          });
        } catch (error) {
          throw new RerankError(`rerank server ${endpoint}: ${(error as Error).message}`);
        }
        const text = await response.text();
        if (!response.ok) {
          const error = new RerankError(`rerank server ${endpoint}: HTTP ${response.status}: ${text.slice(0, 300)}`);
          throw retryable(response.status) ? error : new AbortError(error);
        }
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new AbortError(new RerankError(`rerank server ${endpoint}: reply is not JSON: ${text.slice(0, 200)}`));
        }
      },
      { retries: params.maxRetries, minTimeout: params.retryDelayMs, factor: 2 },
    );
    const scores: Array<number | undefined> = new Array(passages.length).fill(undefined);
    const entries = params.protocol === 'tei'
      ? TeiReplySchema.safeParse(reply).data?.map((r) => [r.index, r.score] as const)
      : V1ReplySchema.safeParse(reply).data?.results.map((r) => [r.index, r.relevance_score] as const);
    if (!entries) throw new RerankError(`rerank server ${endpoint}: reply does not have the ${params.protocol} shape: ${JSON.stringify(reply).slice(0, 200)}`);
    for (const [index, score] of entries) {
      if (index >= passages.length || scores[index] !== undefined || !Number.isFinite(score)) {
        throw new RerankError(`rerank server ${endpoint}: reply has a bad or repeated entry (index ${index}, score ${score}) for ${passages.length} passages`);
      }
      scores[index] = score;
    }
    const missing = scores.findIndex((s) => s === undefined);
    if (missing >= 0) throw new RerankError(`rerank server ${endpoint}: no score for passage ${missing} of ${passages.length}`);
    return scores as number[];
  }

  return {
    name: 'remote',
    async rerank(query, passages): Promise<RerankOutcome> {
      const size = params.batchSize;
      const batches = Array.from({ length: Math.ceil(passages.length / size) }, (_, b) => passages.slice(b * size, (b + 1) * size));
      const scored = await Promise.all(batches.map((batch) => limit(() => post(query, batch))));
      return { scores: scored.flat() };
    },
    describe: () => ({ name: 'remote', endpoint, protocol: params.protocol, ...(params.model ? { model: params.model } : {}), batchSize: params.batchSize }),
    async close() {},
  };
}
