import { z } from 'zod';

export const DEFAULT_RERANKER_MODEL = 'Xenova/bge-reranker-large';

/** Config of the `cross-encoder` reranker; defaults suit BAAI's bge-reranker family. */
export const CrossEncoderParamsSchema = z
  .object({
    /** Hub id (looked up in `cacheDir`: Xenova/bge-reranker-base, -large, onnx-community/bge-reranker-v2-m3 …) or a local model directory. */
    model: z.string().min(1).default(DEFAULT_RERANKER_MODEL),
    cacheDir: z.string().min(1).default('.cache/transformers'),
    allowRemote: z.boolean().default(false),
    /** Pairs longer than this are cut on the passage side; the query is never cut. */
    maxTokens: z.number().int().min(4).default(512),
    /** `q8` loads `onnx/model_quantized.onnx`. */
    dtype: z.enum(['fp32', 'q8']).default('fp32'),
    /** Pairs per model call, grouped by token length first. */
    batchSize: z.number().int().positive().default(16),
    /** onnxruntime intra-op threads per model instance (default: onnxruntime's choice, or 1 per worker). */
    threads: z.number().int().positive().optional(),
    /** Worker processes, each with its own model instance (onnxruntime-node cannot run in several threads); 0 runs the model in this process. */
    workers: z.number().int().nonnegative().default(0),
    /** Most (query, passage) scores kept in memory, so repeated pairs are scored once. */
    cacheSize: z.number().int().nonnegative().default(100_000),
    /** SQLite file keeping every pair's logit on disk, so a resumed or repeated run rescores nothing. */
    cacheFile: z.string().min(1).optional(),
  })
  .strict();
export type CrossEncoderParams = z.output<typeof CrossEncoderParamsSchema>;
export type CrossEncoderConfig = z.input<typeof CrossEncoderParamsSchema>;
