import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bleu4 } from '../../../src/scoring/textMetrics/bleu.js';
import { rougeL } from '../../../src/scoring/textMetrics/rougeL.js';

/** Vectors from sacrebleu and rouge-score run on these texts (scripts/golden/text_metrics.py). */
interface TextCase {
  hypothesis: string;
  reference: string;
  note: string;
  bleuChar: number;
  bleuZh: number;
  zhAgreesWithChar: boolean;
  rougeL: { precision: number; recall: number; f1: number };
}
const golden = JSON.parse(readFileSync(new URL('../../golden/text-metrics.json', import.meta.url), 'utf8')) as {
  references: { bleu: { version: string } };
  cases: TextCase[];
};

describe(`character BLEU-4 against sacrebleu ${golden.references.bleu.version} (sentence_bleu, char tokenizer)`, () => {
  it.each(golden.cases.map((c) => [c.note, c] as const))('%s', (_note, c) => {
    expect(bleu4(c.hypothesis, c.reference)).toBeCloseTo(c.bleuChar, 9);
    // On ideographs and CJK punctuation alone sacrebleu's zh tokenizer splits the same way.
    if (c.zhAgreesWithChar) expect(bleu4(c.hypothesis, c.reference)).toBeCloseTo(c.bleuZh, 9);
  });
});

describe("character ROUGE-L against rouge-score's _score_lcs (one token per character)", () => {
  it.each(golden.cases.map((c) => [c.note, c] as const))('%s', (_note, c) => {
    const score = rougeL(c.hypothesis, c.reference);
    expect(score.precision).toBeCloseTo(c.rougeL.precision, 9);
    expect(score.recall).toBeCloseTo(c.rougeL.recall, 9);
    expect(score.f1).toBeCloseTo(c.rougeL.f1, 9);
  });
});
