import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { InputError } from '../errors.js';
import type { SizeMeasure } from './types.js';

/** OpenAI encodings a `tokenizer:` names as `tiktoken:<encoding>`; js-tiktoken bundles their ranks (no network), imported on use (megabytes most runs never need). */
const TIKTOKEN_RANKS = {
  o200k_base: () => import('js-tiktoken/ranks/o200k_base'),
  cl100k_base: () => import('js-tiktoken/ranks/cl100k_base'),
  p50k_base: () => import('js-tiktoken/ranks/p50k_base'),
  r50k_base: () => import('js-tiktoken/ranks/r50k_base'),
} as const;
const TIKTOKEN_PREFIX = 'tiktoken:';
/** Built encoders by encoding name (see loadTokenizerSpec). */
const encoders: Record<string, Promise<import('js-tiktoken/lite').Tiktoken>> = {};

/** A `tokenizer:` setting made absolute: a directory resolved against `baseDir`, an encoding name kept as written. */
export function resolveTokenizerSpec(spec: string, baseDir: string): string {
  return spec.startsWith(TIKTOKEN_PREFIX) ? spec : resolve(baseDir, spec);
}

/** How a surface names the unit a `tokenizer:` setting counts in ("tokens (o200k_base encoding)"). */
export function tokenizerUnit(spec: string): string {
  return spec.startsWith(TIKTOKEN_PREFIX) ? `tokens (${spec.slice(TIKTOKEN_PREFIX.length)} encoding)` : `tokens (${basename(spec)} tokenizer)`;
}

/**
 * A `tokenizer:` setting's counter: `tiktoken:<encoding>` counts in an OpenAI encoding (the
 * reader's own tokens for GPT-family models, through js-tiktoken, a port of tiktoken), anything
 * else is a local tokenizer directory (`loadTokenCounter`).
 */
export async function loadTokenizerSpec(spec: string): Promise<SizeMeasure> {
  if (!spec.startsWith(TIKTOKEN_PREFIX)) return loadTokenCounter(spec);
  const encoding = spec.slice(TIKTOKEN_PREFIX.length);
  if (!Object.hasOwn(TIKTOKEN_RANKS, encoding)) {
    throw new InputError(`tokenizer: unknown OpenAI encoding ${JSON.stringify(encoding)} (known: ${Object.keys(TIKTOKEN_RANKS).map((e) => TIKTOKEN_PREFIX + e).join(', ')})`);
  }
  // One encoder an encoding per process: building it parses megabytes of ranks, and models, chunkings and retries share it.
  const tokenizer = await (encoders[encoding] ??= Promise.all([import('js-tiktoken/lite'), TIKTOKEN_RANKS[encoding as keyof typeof TIKTOKEN_RANKS]()]).then(([{ Tiktoken }, ranks]) => new Tiktoken(ranks.default)));
  // Special-token text in a passage is counted as ordinary text, as the API does for user content.
  return (text) => tokenizer.encode(text, [], []).length;
}

/**
 * Loads the embedder's tokenizer from a local directory (`tokenizer.json` + `tokenizer_config.json`,
 * the layout transformers.js reads) and returns a token counter without special tokens.
 * Why not `AutoTokenizer.from_pretrained`: it resolves ids under the process-wide
 * `env.localModelPath`, which the embedding stage owns; building the class the same way
 * AutoTokenizer does, from files we read ourselves, never touches the network or global state.
 */
export async function loadTokenCounter(dir: string): Promise<SizeMeasure> {
  const readJson = async (name: string, required: boolean): Promise<Record<string, unknown>> => {
    const path = join(dir, name);
    let raw: string;
    try {
      raw = await readFile(path, 'utf8');
    } catch {
      if (!required) return {};
      throw new InputError(`tokenizer: ${path} not found (chunking.tokenizer must be a local directory with tokenizer.json)`);
    }
    try {
      return JSON.parse(raw) as Record<string, unknown>;
    } catch (error) {
      throw new InputError(`tokenizer: ${path} is not valid JSON (${(error as Error).message})`);
    }
  };
  const tokenizerJson = await readJson('tokenizer.json', true);
  const tokenizerConfig = await readJson('tokenizer_config.json', false);
  const className = String(tokenizerConfig.tokenizer_class ?? 'PreTrainedTokenizer').replace(/Fast$/, '');
  // Loaded only when a token count is asked for: importing transformers.js loads onnxruntime-node,
  // a native addon that must not be loaded into every corpus worker thread (bundled workers hoist
  // static imports of packages, and onnxruntime in many threads at once corrupts the heap).
  const { AutoTokenizer, PreTrainedTokenizer: BaseTokenizer } = await import('@huggingface/transformers');
  const mapping = (AutoTokenizer as unknown as { TOKENIZER_CLASS_MAPPING: Record<string, typeof PreTrainedTokenizer> })
    .TOKENIZER_CLASS_MAPPING;
  const TokenizerClass = mapping[className] ?? BaseTokenizer;
  const tokenizer = new TokenizerClass(tokenizerJson, tokenizerConfig);
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length;
}
