import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { verdictKey } from '../rubric/parseRubric.js';
import type { Judge, JudgeOutcome, JudgeRequest } from '../types.js';
import { createLexicalJudge, verdictLines } from './lexical.js';
import { DEFAULT_CUE, overcreditSchema, type OvercreditParams } from './overcreditSchema.js';

export { OvercreditParams } from './overcreditSchema.js';


/** Deterministic draw in [0, 1) per (seed, question, answer, item), so re-judging gives the same verdicts. */
function seededUnit(seed: number, ...parts: string[]): number {
  const digest = createHash('sha256').update([String(seed), ...parts].join('\u0000')).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/**
 * Deliberately biased offline stand-in (for the judge-check demo): the lexical judge's verdicts,
 * except that a missed bonus item is marked hit with probability `ragRate` when the answer shows
 * it used retrieved passages (matches `cue`) and `baseRate` otherwise. Its bias is known, so the
 * corrected estimates can be checked against labels drawn from the unbiased lexical judge.
 */
export function createOvercreditJudge(options: { threshold?: number; ragRate?: number; baseRate?: number; cue?: string; seed?: number } = {}): Judge {
  const ragRate = options.ragRate ?? 0.4;
  const baseRate = options.baseRate ?? 0.05;
  const seed = options.seed ?? 0;
  const cue = new RegExp(options.cue ?? DEFAULT_CUE);
  const lexical = createLexicalJudge({ threshold: options.threshold });
  return {
    name: 'lexical-overcredit',
    model: `lexical-overcredit@${ragRate}/${baseRate}`,
    async judge(request: JudgeRequest): Promise<JudgeOutcome> {
      const outcome = await lexical.judge(request);
      if (!outcome.ok) return outcome;
      const rate = cue.test(request.answer) ? ragRate : baseRate;
      const verdicts = { ...outcome.verdicts };
      for (const item of request.rubricItems) {
        const key = verdictKey(item);
        if (item.half !== 'bonus' || verdicts[key] === 1) continue;
        if (seededUnit(seed, request.question, request.answer, key) < rate) verdicts[key] = 1;
      }
      return { ...outcome, verdicts, raw: verdictLines(verdicts) };
    },
  };
}

export const overcreditJudge: RegistryEntry<z.infer<typeof OvercreditParams>, Judge, void> = {
  ...overcreditSchema,
  create: (params) => createOvercreditJudge(params),
};
