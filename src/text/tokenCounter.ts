/** Counts tokens of a text; budgets are in these units. */
export type TokenCounter = (text: string) => number;

const CJK = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/gu;

/**
 * Tokenizer-free estimate that holds across the models in use: BPE vocabularies of Chinese-
 * capable models give roughly one token per CJK character (and CJK punctuation mark), and about
 * four characters per token for other text.
 */
export const estimateTokens: TokenCounter = (text) => {
  const cjk = text.match(CJK)?.length ?? 0;
  const other = text.length - cjk;
  return cjk + Math.ceil(other / 4);
};

/** The unit of the default count, the CJK estimate, as every surface names it. */
export const ESTIMATE_UNIT = 'tokens (estimate)';

/** One unit per character (UTF-16 code unit): a budget in characters. */
export const countChars: TokenCounter = (text) => text.length;

/** Counters a config may name; code may pass any TokenCounter. */
export const tokenCounters = {
  'cjk-estimate': estimateTokens,
  chars: countChars,
} satisfies Record<string, TokenCounter>;
