import * as OpenCC from 'opencc-js';
import { describe, expect, it } from 'vitest';
import { createTraditionalToSimplified } from '../../src/text/fastConverter.js';

const reference = OpenCC.Converter({ from: 't', to: 'cn' });
const fast = createTraditionalToSimplified();

// Every key of the t2s dictionaries, so that every phrase and character rule is exercised.
function dictionaryKeys(): string[] {
  const config = (OpenCC.Locale.configs as unknown as Record<string, { normalizationChain: string[][]; conversionChain: string[][] }>).t2s!;
  return [...config.normalizationChain, ...config.conversionChain].flat().flatMap((dict) => dict.split('|').map((entry) => entry.split(' ')[0]!));
}

describe('fast traditional → simplified converter', () => {
  const keys = dictionaryKeys();

  it('gives opencc-js’s output on every dictionary key alone', () => {
    const mismatches = keys.filter((key) => fast(key) !== reference(key));
    expect(mismatches).toEqual([]);
  });

  it('gives opencc-js’s output on long texts mixing keys, plain text, surrogate pairs and description sequences', () => {
    let seed = 11;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    const extras = ['的', '。', 'abc ', '𠀋', '𡃁', '⿰氵青', '⿱⿰木木火', '⿲', '\n', '乾隆', '皇后', '頭髮', '著作'];
    for (let text = 0; text < 20; text++) {
      let s = '';
      for (let i = 0; i < 3000; i++) s += random() < 0.7 ? keys[Math.floor(random() * keys.length)] : extras[Math.floor(random() * extras.length)];
      expect(fast(s)).toBe(reference(s));
    }
  });

  it('returns text that needs no change as it is', () => {
    expect(fast('简体中文 plain text')).toBe('简体中文 plain text');
    expect(fast('')).toBe('');
  });
});
