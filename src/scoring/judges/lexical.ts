import { z } from 'zod';
import type { RegistryEntry } from '../../registry.js';
import { verdictKey } from '../rubric/parseRubric.js';
import type { Judge, JudgeRequest, JudgeOutcome, RubricItem, Verdicts } from '../types.js';
import { lexicalSchema, LexicalParams } from './lexicalSchema.js';

export { LexicalParams } from './lexicalSchema.js';

/** Rubric wording that says what to check rather than what the answer must contain. */
const INSTRUCTION_WORDS = /(?:明确)?(?:指出|提及|提到|说明|阐明|阐述|论述|分析|回答|答出|写出|列举|解释|概括|涉及|包括|包含|能够|正确|准确|清楚|完整|基本|至少|其中|任意|之一|每点|每项|一点|等)/g;

/** Content of an item: no weight markers, no `【tag】`, no instruction words. */
export function itemContent(text: string): string {
  return text
    .replace(/[{｛][^}｝]*[}｝]/g, ' ')
    .replace(/【[^】]*】/g, ' ')
    .replace(INSTRUCTION_WORDS, ' ');
}

/** CJK character bigrams of each CJK run, plus ASCII words/numbers (years such as 605). */
export function contentKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const run of text.match(/[\u3400-\u9fff]+/g) ?? []) {
    const chars = [...run];
    if (chars.length === 1) keys.add(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) keys.add(chars[i]! + chars[i + 1]!);
  }
  for (const word of text.match(/[A-Za-z0-9]+/g) ?? []) keys.add(word.toLowerCase());
  return keys;
}

/** Share of an item's content keys found in the answer (0 when the item has none). */
export function coverage(item: RubricItem, answerKeys: Set<string>): number {
  const keys = contentKeys(itemContent(item.text));
  if (keys.size === 0) return 0;
  let found = 0;
  for (const key of keys) if (answerKeys.has(key)) found++;
  return found / keys.size;
}

/** Verdicts as a judge writes them, one `加分项_1: 1` line each. */
export const verdictLines = (verdicts: Verdicts) => Object.entries(verdicts).map(([key, hit]) => `${key}: ${hit}`).join('\n');

/**
 * Offline stand-in for an LLM judge: a bonus item is hit when at least `threshold` of its
 * content (CJK bigrams and ASCII words, instruction words removed) appears in the answer. A
 * deduction item is never hit offline — spotting errors needs a real judge.
 */
export function createLexicalJudge(options: { threshold?: number } = {}): Judge {
  const threshold = options.threshold ?? 0.5;
  return {
    name: 'lexical',
    model: `lexical@${threshold}`,
    async judge(request: JudgeRequest): Promise<JudgeOutcome> {
      const answerKeys = contentKeys(request.answer);
      const verdicts: Verdicts = {};
      for (const item of request.rubricItems) {
        verdicts[verdictKey(item)] = item.half === 'bonus' && coverage(item, answerKeys) >= threshold ? 1 : 0;
      }
      return { ok: true, verdicts, raw: verdictLines(verdicts), strayLines: 0, attempts: 1 };
    },
  };
}

export const lexicalJudge: RegistryEntry<z.infer<typeof LexicalParams>, Judge, void> = {
  ...lexicalSchema,
  create: (params) => createLexicalJudge(params),
};
