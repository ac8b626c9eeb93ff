import { Registry } from '../registry.js';
import { CrossEncoderParamsSchema } from './crossEncoderParams.js';
import { CrossEncoderReranker } from './crossEncoderReranker.js';
import { createLlmReranker, LlmRerankerParamsSchema } from './llmListwiseReranker.js';
import { createRemoteReranker, RemoteRerankerParamsSchema } from './remoteReranker.js';
import type { Reranker } from './types.js';

/** Rerankers by name, picked by a retriever's `rerank: { name, ... }`. */
export const rerankers = new Registry<Reranker, void>('reranker');

rerankers
  .register({
    name: 'cross-encoder',
    description: 'cross-encoder through transformers.js (bge-reranker-large by default, or a local model directory)',
    params: CrossEncoderParamsSchema,
    create: (params) => new CrossEncoderReranker(params),
  })
  .register({
    name: 'remote',
    description: "remote reranking server: TEI's /rerank or the Jina/Cohere-style /v1/rerank (vLLM, Infinity, hisrag serve rerank)",
    params: RemoteRerankerParamsSchema,
    create: (params) => createRemoteReranker(params),
  })
  .register({
    name: 'llm',
    description: 'listwise reranking by an OpenAI-compatible chat model (falls back to the first-stage order on an unusable answer)',
    params: LlmRerankerParamsSchema,
    create: (params) => createLlmReranker(params),
  });
