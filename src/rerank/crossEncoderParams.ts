import { z } from 'zod';
import { modelParamFields } from '../models/modelParams.js';

export const DEFAULT_RERANKER_MODEL = 'Xenova/bge-reranker-large';

/** Config of the `cross-encoder` reranker; defaults suit BAAI's bge-reranker family. */
export const CrossEncoderParamsSchema = z
  .object({
    model: z.string().min(1).default(DEFAULT_RERANKER_MODEL).describe('Hub id (looked up in `cacheDir`: Xenova/bge-reranker-base, -large, onnx-community/bge-reranker-v2-m3 …) or a local model directory'),
    /** cacheDir, allowRemote, dtype, threads, workers: as every model stage. */
    ...modelParamFields,
    maxTokens: z.number().int().min(4).default(512).describe('Pairs longer than this are cut on the passage side; the query is never cut'),
    batchSize: z.number().int().positive().default(16).describe('Pairs per model call, grouped by token length first'),
    cacheSize: z.number().int().nonnegative().default(100_000).describe('Most (query, passage) scores kept in memory, so repeated pairs are scored once'),
    cacheFile: z.string().min(1).optional().describe('SQLite file keeping every pair\'s logit on disk, so a resumed or repeated run rescores nothing'),
  })
  .strict();
export type CrossEncoderParams = z.output<typeof CrossEncoderParamsSchema>;
export type CrossEncoderConfig = z.input<typeof CrossEncoderParamsSchema>;
