import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { InputError } from '../errors.js';
import type { SizeMeasure } from './types.js';

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
