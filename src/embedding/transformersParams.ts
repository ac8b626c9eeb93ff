import { z } from 'zod';

/** BGE's recommended instruction for short queries against passages (queries only). */
export const BGE_QUERY_PREFIX = '为这个句子生成表示以用于检索相关文章：';
export const DEFAULT_MODEL = 'Xenova/bge-large-zh-v1.5';

/** Config of the `transformers` embedder; defaults are bge-large-zh-v1.5's (DESIGN.md). */
export const TransformersEmbedderParamsSchema = z
  .object({
    /** Hugging Face hub id (looked up in `cacheDir`) or a local model directory. */
    model: z.string().min(1).default(DEFAULT_MODEL),
    /** Where hub models are cached/downloaded; `.cache/transformers` under the working directory by default. */
    cacheDir: z.string().min(1).default('.cache/transformers'),
    /** Allow downloading from the hub when the model is not found locally. */
    allowRemote: z.boolean().default(false),
    pooling: z.enum(['cls', 'mean']).default('cls'),
    normalize: z.boolean().default(true),
    /** Prepended by `embedQuery` only, never by `embedDocuments`. */
    queryPrefix: z.string().default(BGE_QUERY_PREFIX),
    /** Longer texts are truncated to this many tokens (including [CLS]/[SEP]). */
    maxTokens: z.number().int().min(3).default(512),
    /** `q8` loads `onnx/model_quantized.onnx`. */
    dtype: z.enum(['fp32', 'q8']).default('fp32'),
    /** Texts per model call; texts are grouped by token length first so that padding stays small. */
    batchSize: z.number().int().positive().default(16),
    /** onnxruntime intra-op threads per model instance (default: onnxruntime's choice, or 1 per worker). */
    threads: z.number().int().positive().optional(),
    /** Worker processes, each with its own model instance (onnxruntime-node 1.21 cannot run in several threads); 0 runs the model in this process. */
    workers: z.number().int().nonnegative().default(0),
    /** SQLite file caching vectors by (embedder, sha256 of text): a re-run embeds nothing twice. */
    cacheFile: z.string().min(1).optional(),
    /** Show progress (rate, ETA) on stderr while embedding many documents. */
    progress: z.boolean().default(false),
  })
  .strict();
export type TransformersEmbedderParams = z.output<typeof TransformersEmbedderParamsSchema>;
export type TransformersEmbedderConfig = z.input<typeof TransformersEmbedderParamsSchema>;
