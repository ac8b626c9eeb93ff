import { join } from 'node:path';
import { z } from 'zod';
import { DataFileError } from '../errors.js';
import { readJsonFile } from '../io/jsonText.js';

/** How token vectors become one: the first token, the mean, the last token (decoder embedders), or the model itself (CLIP towers). */
export type Pooling = 'cls' | 'mean' | 'last';

/** What a model expects of its inputs and outputs: how it pools, whether it normalises, what goes before queries and documents. */
export interface EmbeddingConventions {
  pooling: Pooling;
  normalize: boolean;
  queryPrefix: string;
  documentPrefix: string;
}

/** BGE's recommended instruction for short queries against passages (queries only). */
export const BGE_QUERY_PREFIX = '为这个句子生成表示以用于检索相关文章：';
/** Qwen3-Embedding's query format (`Instruct: {task}\nQuery:{query}`) with the model card's retrieval task; documents go bare. */
export const QWEN3_QUERY_PREFIX = 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:';

/**
 * The conventions of the models a Chinese historical study would use, each as its model card states
 * them (docs/indexes.md names the cards).
 */
export const EMBEDDER_PRESETS = {
  'bge-large-zh-v1.5': { pooling: 'cls', normalize: true, queryPrefix: BGE_QUERY_PREFIX, documentPrefix: '' },
  'bge-m3': { pooling: 'cls', normalize: true, queryPrefix: '', documentPrefix: '' },
  'multilingual-e5': { pooling: 'mean', normalize: true, queryPrefix: 'query: ', documentPrefix: 'passage: ' },
  'gte-multilingual': { pooling: 'cls', normalize: true, queryPrefix: '', documentPrefix: '' },
  'qwen3-embedding': { pooling: 'last', normalize: true, queryPrefix: QWEN3_QUERY_PREFIX, documentPrefix: '' },
} as const satisfies Record<string, EmbeddingConventions>;
export type EmbedderPreset = keyof typeof EMBEDDER_PRESETS;
export const EmbedderPresetSchema = z.enum(Object.keys(EMBEDDER_PRESETS) as [EmbedderPreset, ...EmbedderPreset[]]);

/** Where each convention came from, e.g. `{ pooling: 'model files (1_Pooling/config.json)', queryPrefix: 'config' }`. */
export type ConventionSources = Record<keyof EmbeddingConventions, string>;

export interface ResolvedConventions {
  conventions: EmbeddingConventions;
  sources: ConventionSources;
}

const PoolingConfigSchema = z
  .object({
    pooling_mode_cls_token: z.boolean().optional(),
    pooling_mode_mean_tokens: z.boolean().optional(),
    pooling_mode_max_tokens: z.boolean().optional(),
    pooling_mode_mean_sqrt_len_tokens: z.boolean().optional(),
    pooling_mode_weightedmean_tokens: z.boolean().optional(),
    pooling_mode_lasttoken: z.boolean().optional(),
  })
  .passthrough();
const ModulesSchema = z.array(z.object({ path: z.string(), type: z.string() }).passthrough());
const SentenceTransformersConfigSchema = z.object({ prompts: z.record(z.string(), z.string()).optional() }).passthrough();

/** The pooling a sentence-transformers Pooling config names; anything hisrag cannot do is refused, naming the file. */
function poolingOf(path: string, config: z.infer<typeof PoolingConfigSchema>): Pooling {
  const modes = Object.entries(config).filter(([key, on]) => key.startsWith('pooling_mode_') && on === true).map(([key]) => key);
  const named: Record<string, Pooling> = { pooling_mode_cls_token: 'cls', pooling_mode_mean_tokens: 'mean', pooling_mode_lasttoken: 'last' };
  if (modes.length === 1 && named[modes[0]!]) return named[modes[0]!]!;
  throw new DataFileError(`${path}: pooling ${modes.join(' + ') || '(none)'} is not one hisrag computes (cls, mean, last token); set the embedder's \`pooling\` to override`);
}

/**
 * What a model directory in sentence-transformers' layout says of itself: pooling from its Pooling
 * module's config (`1_Pooling/config.json`), normalisation from whether `modules.json` lists a
 * Normalize module, prompts from `config_sentence_transformers.json` (`query`, and `document` or
 * `passage`). Each value with the file it came from; files that are absent say nothing.
 */
export function modelDirConventions(dir: string): { values: Partial<EmbeddingConventions>; files: Partial<Record<keyof EmbeddingConventions, string>> } {
  const values: Partial<EmbeddingConventions> = {};
  const files: Partial<Record<keyof EmbeddingConventions, string>> = {};
  const modules = readJsonFile(join(dir, 'modules.json'), ModulesSchema);
  const poolingDir = modules?.find((module) => module.type.endsWith('Pooling'))?.path || '1_Pooling';
  const poolingPath = join(dir, poolingDir, 'config.json');
  const pooling = readJsonFile(poolingPath, PoolingConfigSchema);
  if (pooling) {
    values.pooling = poolingOf(poolingPath, pooling);
    files.pooling = `${poolingDir}/config.json`;
  }
  if (modules) {
    values.normalize = modules.some((module) => module.type.endsWith('Normalize'));
    files.normalize = 'modules.json';
  }
  const prompts = readJsonFile(join(dir, 'config_sentence_transformers.json'), SentenceTransformersConfigSchema)?.prompts ?? {};
  if (prompts.query !== undefined) {
    values.queryPrefix = prompts.query;
    files.queryPrefix = 'config_sentence_transformers.json';
  }
  const document = prompts.document ?? prompts.passage ?? prompts.corpus;
  if (document !== undefined) {
    values.documentPrefix = document;
    files.documentPrefix = 'config_sentence_transformers.json';
  }
  return { values, files };
}

/**
 * Each convention from the first that gives it: the config's own field, the config's preset, the
 * model directory's sentence-transformers files, else `fallback` (bge-large-zh-v1.5's for the
 * transformers embedder, hisrag's default model).
 */
export function resolveConventions(
  given: Partial<EmbeddingConventions> & { preset?: EmbedderPreset },
  modelDir: string | undefined,
  fallback: EmbeddingConventions,
): ResolvedConventions {
  const preset = given.preset ? EMBEDDER_PRESETS[given.preset] : undefined;
  const fromFiles = modelDir ? modelDirConventions(modelDir) : { values: {}, files: {} };
  const conventions = {} as Record<keyof EmbeddingConventions, unknown>;
  const sources = {} as ConventionSources;
  for (const key of ['pooling', 'normalize', 'queryPrefix', 'documentPrefix'] as const) {
    if (given[key] !== undefined) [conventions[key], sources[key]] = [given[key], 'config'];
    else if (preset) [conventions[key], sources[key]] = [preset[key], `preset ${given.preset}`];
    else if (fromFiles.values[key] !== undefined) [conventions[key], sources[key]] = [fromFiles.values[key], `model files (${fromFiles.files[key]})`];
    else [conventions[key], sources[key]] = [fallback[key], 'default'];
  }
  return { conventions: conventions as unknown as EmbeddingConventions, sources };
}
