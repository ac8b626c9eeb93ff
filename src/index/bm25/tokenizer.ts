import { createRequire } from 'node:module';
import type { Jieba } from '@node-rs/jieba';
import { toSimplified } from '../../text/simplify.js';
import type { Bm25Params } from '../../runFiles/indexManifest.js';

// Loading jieba's dictionary takes ~0.5 s; share one segmenter per process. Required on first use
// (synchronously, it is CommonJS): opening an index that is not BM25 loads neither addon nor dictionary.
let jieba: Jieba | undefined;
const require = createRequire(import.meta.url);
const loadJieba = (): Jieba => {
  const { Jieba: Segmenter } = require('@node-rs/jieba') as typeof import('@node-rs/jieba');
  const { dict } = require('@node-rs/jieba/dict.js') as typeof import('@node-rs/jieba/dict.js');
  return Segmenter.withDict(dict);
};

/** A term must contain a letter or digit of some script (drops punctuation and whitespace). */
const WORDLIKE = /[\p{L}\p{N}]/u;
const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/gu;
/** Prefix that keeps bigram terms apart from jieba words with the same characters. */
export const BIGRAM_PREFIX = '\u0002';

export type TokenizerOptions = Pick<Bm25Params, 'bigrams' | 'simplify' | 'hmm'>;

/**
 * BM25 terms of a text: NFKC-normalised, lower-cased, optionally simplified; jieba words that contain a
 * letter or digit; plus, when `bigrams` is on, every pair of adjacent CJK characters (as separate terms).
 * Documents and queries go through the same function.
 */
export function tokenize(text: string, options: TokenizerOptions): string[] {
  let normalized = text.normalize('NFKC').toLowerCase();
  if (options.simplify) normalized = toSimplified(normalized);
  jieba ??= loadJieba();
  const terms = jieba.cut(normalized, options.hmm).filter((word) => WORDLIKE.test(word));
  if (options.bigrams) {
    for (const run of normalized.match(CJK_RUN) ?? []) {
      const chars = [...run];
      for (let i = 0; i + 1 < chars.length; i++) terms.push(BIGRAM_PREFIX + chars[i]! + chars[i + 1]!);
    }
  }
  return terms;
}
