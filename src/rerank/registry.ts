import { Registry } from '../registry.js';
import { CrossEncoderParamsSchema } from './crossEncoderParams.js';
import { LlmRerankerParamsSchema } from './llmRerankerParams.js';
import { RemoteRerankerParamsSchema } from './remoteRerankerParams.js';
import type { Reranker } from './types.js';

/** Rerankers by name, picked by a retriever's `rerank: { name, ... }`. */
export const rerankers = new Registry<Reranker, void>('reranker')
  .registerLazy(
    { name: 'cross-encoder', description: 'cross-encoder through transformers.js (bge-reranker-large by default, or a local model directory)', params: CrossEncoderParamsSchema },
    async () => {
      const { CrossEncoderReranker } = await import('./crossEncoderReranker.js');
      return (params) => new CrossEncoderReranker(params);
    },
  )
  .registerLazy(
    { name: 'remote', description: "remote reranking server: TEI's /rerank or the Jina/Cohere-style /v1/rerank (vLLM, Infinity, hisrag serve rerank)", params: RemoteRerankerParamsSchema },
    // Not the function itself: its second parameter is the environment, not the stage's context.
    async () => {
      const { createRemoteReranker } = await import('./remoteReranker.js');
      return (params) => createRemoteReranker(params);
    },
  )
  .registerLazy(
    { name: 'llm', description: 'listwise reranking by an OpenAI-compatible chat model (falls back to the first-stage order on an unusable answer)', params: LlmRerankerParamsSchema },
    async () => (await import('./llmListwiseReranker.js')).createLlmReranker,
  );
