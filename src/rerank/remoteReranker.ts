import pLimit from 'p-limit';
import pRetry, { AbortError } from 'p-retry';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { RerankError, type Reranker, type RerankOutcome } from './types.js';
import type { RemoteRerankerParams } from './remoteRerankerParams.js';

export { RemoteRerankerParamsSchema, type RemoteRerankerParams } from './remoteRerankerParams.js';

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
