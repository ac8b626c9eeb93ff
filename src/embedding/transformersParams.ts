import { z } from 'zod';
import { modelParamFields } from '../models/modelParams.js';
import { BGE_QUERY_PREFIX, EMBEDDER_PRESETS, EmbedderPresetSchema } from './conventions.js';

export { BGE_QUERY_PREFIX };
export const DEFAULT_MODEL = 'Xenova/bge-large-zh-v1.5';

/** Config of the `transformers` embedder; defaults are bge-large-zh-v1.5's (DESIGN.md). */
export const TransformersEmbedderParamsSchema = z
  .object({
    model: z.string().min(1).default(DEFAULT_MODEL).describe('Hugging Face hub id (looked up in `cacheDir`) or a local model directory'),
    /** cacheDir, allowRemote, dtype, threads, workers: as every model stage. */
    ...modelParamFields,
    preset: EmbedderPresetSchema.optional().describe('A model\'s conventions (pooling, normalisation, prompts) as its model card states them; the fields below override it, and it overrides the model directory\'s sentence-transformers files'),
    pooling: z.enum(['cls', 'mean', 'last']).optional().describe('How token vectors become one: `cls` (the first token, BGE), `mean` (e5) or `last` (the last token, Qwen3-Embedding). Unset: the preset, else the model directory\'s `1_Pooling/config.json`, else `cls`'),
    normalize: z.boolean().optional().describe('Scale vectors to unit length (dot product = cosine). Unset: the preset, else whether `modules.json` lists a Normalize module, else true'),
    queryPrefix: z.string().optional().describe('Prepended by `embedQuery` only. Unset: the preset, else the `query` prompt of `config_sentence_transformers.json`, else BGE\'s instruction'),
    documentPrefix: z.string().optional().describe('Prepended to every document embedded (never stored in chunk text). Unset: the preset, else the `document`/`passage` prompt of `config_sentence_transformers.json`, else none'),
    maxTokens: z.number().int().min(3).default(512).describe('Longer texts are truncated to this many tokens (including [CLS]/[SEP])'),
    batchSize: z.number().int().positive().default(16).describe('Texts per model call; texts are grouped by token length first so that padding stays small'),
    cacheFile: z.string().min(1).optional().describe('SQLite file caching vectors by (embedder, sha256 of text): a re-run embeds nothing twice'),
    progress: z.boolean().default(false).describe('Show progress (rate, ETA) on stderr while embedding many documents'),
  })
  .strict();
export type TransformersEmbedderParams = z.output<typeof TransformersEmbedderParamsSchema>;
/** What a model directory without sentence-transformers files gets: bge-large-zh-v1.5's conventions, hisrag's default model. */
export const TRANSFORMERS_FALLBACK_CONVENTIONS = EMBEDDER_PRESETS['bge-large-zh-v1.5'];
export type TransformersEmbedderConfig = z.input<typeof TransformersEmbedderParamsSchema>;
