import { z } from 'zod';
import { modelParamFields } from '../models/modelParams.js';

/** BGE's recommended instruction for short queries against passages (queries only). */
export const BGE_QUERY_PREFIX = '为这个句子生成表示以用于检索相关文章：';
export const DEFAULT_MODEL = 'Xenova/bge-large-zh-v1.5';

/** Config of the `transformers` embedder; defaults are bge-large-zh-v1.5's (DESIGN.md). */
export const TransformersEmbedderParamsSchema = z
  .object({
    model: z.string().min(1).default(DEFAULT_MODEL).describe('Hugging Face hub id (looked up in `cacheDir`) or a local model directory'),
    /** cacheDir, allowRemote, dtype, threads, workers: as every model stage. */
    ...modelParamFields,
    pooling: z.enum(['cls', 'mean']).default('cls').describe('How token vectors become one: `cls` (the first token, BGE) or `mean`'),
    normalize: z.boolean().default(true).describe('Scale vectors to unit length (dot product = cosine)'),
    queryPrefix: z.string().default(BGE_QUERY_PREFIX).describe('Prepended by `embedQuery` only, never by `embedDocuments`'),
    maxTokens: z.number().int().min(3).default(512).describe('Longer texts are truncated to this many tokens (including [CLS]/[SEP])'),
    batchSize: z.number().int().positive().default(16).describe('Texts per model call; texts are grouped by token length first so that padding stays small'),
    cacheFile: z.string().min(1).optional().describe('SQLite file caching vectors by (embedder, sha256 of text): a re-run embeds nothing twice'),
    progress: z.boolean().default(false).describe('Show progress (rate, ETA) on stderr while embedding many documents'),
  })
  .strict();
export type TransformersEmbedderParams = z.output<typeof TransformersEmbedderParamsSchema>;
export type TransformersEmbedderConfig = z.input<typeof TransformersEmbedderParamsSchema>;
