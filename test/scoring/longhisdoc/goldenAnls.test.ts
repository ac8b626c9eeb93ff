import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anls } from '../../../src/scoring/longhisdoc/anls.js';
import { simplifyForScoring } from '../../../src/scoring/longhisdoc/normalise.js';

/** DocVQA's ANLS procedure on these strings, scored by scripts/golden/anls.py (NLTK's edit distance). */
interface AnlsCase {
  prediction: string;
  gold: string;
  note: string;
  docvqaScript: number;
  paperFormula: number;
}
const golden = JSON.parse(readFileSync(new URL('../../golden/anls-docvqa.json', import.meta.url), 'utf8')) as { levenshtein: string; cases: AnlsCase[] };

describe(`ANLS against DocVQA's definition (τ = 0.5; ${golden.levenshtein})`, () => {
  it.each(golden.cases.map((c) => [c.note, c] as const))('%s', (_note, c) => {
    // The cases are already simplified Chinese, so LongHisDoc's conversion changes nothing.
    expect(simplifyForScoring(c.prediction)).toBe(c.prediction);
    expect(simplifyForScoring(c.gold)).toBe(c.gold);
    const value = anls(c.prediction, c.gold);
    // hisrag keeps the papers' rule (0 when NL ≥ τ); DocVQA's script keeps 0.5 at NL = 0.5 exactly.
    expect(value).toBeCloseTo(c.paperFormula, 12);
    if (c.docvqaScript !== 0.5) expect(value).toBeCloseTo(c.docvqaScript, 12);
  });
});
