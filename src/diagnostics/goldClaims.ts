import type { BenchmarkItem } from '../benchmarks/types.js';
import { parseRubric } from '../scoring/rubric/parseRubric.js';

/** Rubric wording that tells the grader what to look for, not what is true: dropped from a gold claim. */
const GRADER_VERBS = /^(?:能够|能|须|需|应)?(?:明确)?(?:指出|说明|提及|提到|阐明|阐述|论述|分析|写出|答出|列举|解释|概括|举出|区分|点明|交代)[：:，,]?/u;

/** A rubric item's text as a claim: weights, `【tag】` markers and the grader's verb removed. */
export function rubricItemClaim(text: string): string {
  return text
    .replace(/[{｛][^}｝]*[}｝]/g, '')
    .replace(/【[^】]*】/g, '')
    .trim()
    .replace(GRADER_VERBS, '')
    .replace(/[。；;，,\s]+$/u, '')
    .trim();
}

/** What the benchmark itself says is true of an item, if anything: its gold claims and the gold answer text. */
export interface BenchmarkGold {
  /** Gold claims the benchmark provides; null when they must be extracted from `answerText`. */
  claims: string[] | null;
  from: 'rubric' | 'answer' | 'extracted' | 'none';
  /** The gold answer the response's claims are checked against (RAGChecker's `gt_answer`). */
  answerText: string;
}

const ARABIC = /^\d+$/;

/**
 * Gold claims from the benchmark: ProHist's bonus points (加分项), LongHisDoc's answer elements (a number
 * in both numerals is one, Chinese); none for yes/no and unanswerable; others extracted from the answer.
 */
export function benchmarkGold(item: BenchmarkItem): BenchmarkGold {
  if (item.kind === 'rubric' && item.rubrics) {
    const bonus = parseRubric(item.rubrics).filter((r) => r.half === 'bonus').map((r) => rubricItemClaim(r.text)).filter(Boolean);
    if (bonus.length) return { claims: [...new Set(bonus)], from: 'rubric', answerText: item.referenceAnswer?.trim() || bonus.join('；') };
  }
  if (item.kind === 'longhisdoc') {
    const answer = item.answer;
    if (item.answerType === 'None' || item.answerType === 'Bool' || answer === undefined) return { claims: [], from: 'none', answerText: typeof answer === 'string' ? answer : '' };
    let elements: string[];
    if (item.answerType === 'Int' && Array.isArray(answer)) {
      const forms = answer.map(String);
      elements = [forms.find((f) => !ARABIC.test(f)) ?? forms[0]!];
    } else {
      elements = (Array.isArray(answer) ? answer : [answer]).map((e) => String(e).trim()).filter(Boolean);
    }
    return { claims: [...new Set(elements)], from: 'answer', answerText: elements.join('；') };
  }
  const reference = item.referenceAnswer?.trim() ?? '';
  if (reference) return { claims: null, from: 'extracted', answerText: reference };
  return { claims: [], from: 'none', answerText: '' };
}
