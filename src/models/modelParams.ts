import { z } from 'zod';

/** Config fields every transformers.js model stage takes (embedder, cross-encoder), spread into its schema. */
export const modelParamFields = {
  cacheDir: z.string().min(1).default('.cache/transformers').describe('Where hub models are cached/downloaded; `.cache/transformers` under the working directory by default'),
  allowRemote: z.boolean().default(false).describe('Allow downloading from the hub when the model is not found locally'),
  dtype: z.enum(['fp32', 'q8']).default('fp32').describe('`q8` loads `onnx/model_quantized.onnx`'),
  threads: z.number().int().positive().optional().describe('onnxruntime intra-op threads per model instance (default: onnxruntime\'s choice, or 1 per worker)'),
  workers: z.number().int().nonnegative().default(0).describe('Worker processes, each with its own model instance (onnxruntime-node 1.21 cannot run in several threads); 0 runs the model in this process'),
};
