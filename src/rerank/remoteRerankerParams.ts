import { z } from 'zod';

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
