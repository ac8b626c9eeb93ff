import { z } from 'zod';
import { modelParamFields } from '../models/modelParams.js';

// The dual encoder runs in this process: no `workers`.
const { workers: _workers, ...inProcessModelFields } = modelParamFields;

/** Config of the `clip` embedder: a CLIP-family dual encoder (text tower for queries, vision tower for page images). */
export const ClipEmbedderParamsSchema = z
  .object({
    model: z.string().min(1).describe('Hub id (looked up in `cacheDir`) or a local model directory holding onnx/text_model.onnx and onnx/vision_model.onnx'),
    ...inProcessModelFields,
    batchSize: z.number().int().positive().default(8).describe('Texts or images per model call'),
    normalize: z.boolean().default(true).describe('Scale vectors to unit length (dot product = cosine)'),
    queryPrefix: z.string().default('').describe('Prepended by `embedQuery` only (CLIP-family models are usually queried bare; jina-clip-v2 suggests its retrieval instruction)'),
    documentPrefix: z.string().default('').describe('Prepended to text documents (never to page images, never stored in chunk text)'),
    maxTokens: z.number().int().min(3).optional().describe('Lowers the tokenizer\'s model_max_length (CLIP 77, Chinese-CLIP 52, jina-clip-v2 512 tokens)'),
    cacheFile: z.string().min(1).optional().describe('SQLite file caching vectors by (embedder, sha256 of input): a re-run embeds nothing twice'),
    progress: z.boolean().default(false).describe('Print embedding progress'),
  })
  .strict();
export type ClipEmbedderParams = z.output<typeof ClipEmbedderParamsSchema>;
export type ClipEmbedderConfig = z.input<typeof ClipEmbedderParamsSchema>;
