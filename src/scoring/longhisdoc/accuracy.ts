import { parseInteger } from '../../text/chineseNumerals.js';
import { anls } from './anls.js';
import { simplifyForScoring } from './normalise.js';
import { parseListAnswer } from './parseList.js';
import type { LongHisDocAnswerType, LongHisDocGold } from '../../benchmarks/longhisdoc/schema.js';

export interface LongHisDocAnswer {
  answerType: LongHisDocAnswerType;
  gold: LongHisDocGold;
  /** The model's raw answer (reasoning already removed). */
  response: string;
  /** The answer extracted into the type's format. */
  extracted: string;
}

const UNANSWERABLE = '无法回答';

function asText(gold: LongHisDocGold): string {
  return Array.isArray(gold) ? String(gold[0] ?? '') : gold;
}

function sameText(a: string, b: string): boolean {
  return simplifyForScoring(a.trim()) === simplifyForScoring(b.trim());
}

/** Integer value of a gold or predicted element (number, Arabic or Chinese numeral), else null. */
function integerOf(value: string | number): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  return parseInteger(value);
}

/** An element is an integer answer when written as one (6, "6", "六" in an Int gold). */
function looksInteger(value: string | number): boolean {
  return typeof value === 'number' || /^\s*\d+\s*$/.test(value);
}

function listScore(gold: Array<string | number>, predicted: Array<string | number>): number {
  if (gold.length === 0 || predicted.length === 0) return 0;
  let sum = 0;
  for (const g of gold) {
    let best = 0;
    for (const p of predicted) {
      const score =
        looksInteger(g) && looksInteger(p) ? (integerOf(g) === integerOf(p) ? 1 : 0) : anls(String(p), String(g));
      best = Math.max(best, score);
    }
    sum += best;
  }
  return (sum / gold.length) * Math.min(1, gold.length / predicted.length) ** 0.5;
}

/**
 * LongHisDoc's generalised accuracy for one answer, 0–1 (DESIGN.md): both sides converted to
 * simplified Chinese; Str = better ANLS of raw response and extracted answer; Int = integer
 * equality with any listed gold numeral (Arabic or Chinese); Enum = case-insensitive
 * equality; Bool = equality; None = the extracted answer says 无法回答; List = greedy best
 * match per gold element × min(1, |gold|/|pred|)^0.5.
 */
export function scoreLongHisDoc(answer: LongHisDocAnswer): number {
  const { gold, response, extracted } = answer;
  switch (answer.answerType) {
    case 'Str': {
      const goldText = asText(gold);
      return Math.max(anls(response.trimEnd(), goldText), anls(extracted, goldText));
    }
    case 'Bool':
      return sameText(extracted, asText(gold)) || sameText(response, asText(gold)) ? 1 : 0;
    case 'Enum': {
      const g = asText(gold).trim().toUpperCase();
      return extracted.trim().toUpperCase() === g || response.trim().toUpperCase() === g ? 1 : 0;
    }
    case 'None':
      return extracted.includes(UNANSWERABLE) ? 1 : 0;
    case 'Int': {
      const predicted = parseInteger(simplifyForScoring(extracted));
      if (predicted === null) return 0;
      const golds = Array.isArray(gold) ? gold : [gold];
      return golds.some((g) => integerOf(typeof g === 'string' ? simplifyForScoring(g) : g) === predicted) ? 1 : 0;
    }
    case 'List': {
      const golds = Array.isArray(gold) ? gold : (parseListAnswer(gold) ?? []);
      return listScore(golds, parseListAnswer(extracted) ?? []);
    }
  }
}
