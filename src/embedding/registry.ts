import { Registry } from '../registry.js';
import type { TextEmbedder } from './types.js';
import { TransformersEmbedderParamsSchema } from './transformersParams.js';
import { OpenAIEmbedderParamsSchema } from './openaiEmbedderParams.js';
import { ClipEmbedderParamsSchema } from './clipEmbedderParams.js';

/** Embedders by name: `transformers` (local ONNX via transformers.js), `openai` (remote /v1/embeddings), `clip` (page images and text, one space). */
export const embedders = new Registry<TextEmbedder, void>('embedder')
  .registerLazy(
    { name: 'transformers', description: 'ONNX BERT model through transformers.js (bge-large-zh-v1.5 by default, or a local model directory)', params: TransformersEmbedderParamsSchema },
    async () => (await import('./transformersEmbedder.js')).createTransformersEmbedder,
  )
  .registerLazy(
    { name: 'openai', description: 'remote OpenAI-compatible /v1/embeddings server (TEI, vLLM, Infinity, hisrag serve embeddings)', params: OpenAIEmbedderParamsSchema },
    async () => (await import('./openaiEmbedder.js')).createOpenAIEmbedder,
  )
  .registerLazy(
    { name: 'clip', description: 'CLIP-family dual encoder through transformers.js (CLIP, SigLIP, jina-clip): text queries against page-image vectors', params: ClipEmbedderParamsSchema },
    async () => (await import('./clipEmbedder.js')).createClipEmbedder,
  );

/** Builds an embedder from a config spec `{ name, ...params }`; errors name `path`. */
export function createEmbedder(spec: { name: string } & Record<string, unknown>, path = 'embedder'): Promise<TextEmbedder> {
  return embedders.create(spec, undefined, path);
}
