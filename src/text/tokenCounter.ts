/** Counts tokens of a text; budgets are in these units. */
export type TokenCounter = (text: string) => number;

const CJK = /^[\p{Script=Han}\u3000-\u303f\uff00-\uffef]$/u;
/**
 * Per BMP code unit: 0 not seen yet, 1 in the class, 2 not, tested when first met (a regex match array
 * per text, or testing all 53,000 candidates up front, took a short plan longer than its counting).
 */
const bmpCjk = new Uint8Array(0x10000);

/**
 * Tokenizer-free estimate that holds across the models in use: BPE vocabularies of Chinese-
 * capable models give roughly one token per CJK character (and CJK punctuation mark), and about
 * four characters per token for other text (an astral CJK character: one token, its second UTF-16 unit a quarter).
 */
export const estimateTokens: TokenCounter = (text) => {
  let cjk = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c >= 0xdc00 || !(text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) < 0xe000)) {
      // Nothing below U+2E80 (CJK Radicals Supplement) is in the class; a lone surrogate is not.
      const seen = bmpCjk[c] || (bmpCjk[c] = c >= 0x2e80 && (c < 0xd800 || c >= 0xe000) && CJK.test(String.fromCharCode(c)) ? 1 : 2);
      if (seen === 1) cjk++;
    } else if (CJK.test(text.slice(i, ++i + 1))) cjk++;
  }
  return cjk + Math.ceil((text.length - cjk) / 4);
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
