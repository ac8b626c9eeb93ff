import { z } from 'zod';
import { modelParamFields } from '../../models/modelParams.js';

export const CausalLmParamsSchema = z
  .object({
    model: z.string().min(1).describe('Hub id (looked up in `cacheDir`, e.g. onnx-community/Qwen2.5-0.5B-Instruct) or a local model directory'),
    cacheDir: modelParamFields.cacheDir,
    allowRemote: modelParamFields.allowRemote,
    dtype: modelParamFields.dtype,
    threads: modelParamFields.threads,
    maxTokens: z.number().int().min(16).default(1024).describe('Tokens one forward pass takes at most (the question prefix included); longer passages are scored in windows'),
  })
  .strict();
export type CausalLmParams = z.output<typeof CausalLmParamsSchema>;
