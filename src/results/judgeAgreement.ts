import { judgeAgreement, type JudgeAgreement, type VerdictRecord } from '../scoring/agreement.js';
import type { LoadedRun } from './loadRun.js';

/** A run's judged answers as verdict records keyed by model|condition|item (failed answers left out). */
export function verdictRecords(run: LoadedRun): VerdictRecord[] {
  return run.records
    .filter((r) => r.score.status === 'scored' && r.score.verdicts)
    .map((r) => ({ id: r.key, verdicts: r.score.verdicts!, score: r.score.scoreRaw ?? r.score.score ?? 0 }));
}

export interface JudgeDisagreement {
  key: string;
  question: string;
  scoreA: number;
  scoreB: number;
  /** Rubric items on which the two judges differ. */
  items: { item: string; a: 0 | 1; b: 0 | 1 }[];
}

/**
 * Agreement between the judges of two runs over the same answers (e.g. the same responses
 * re-judged by another judge, or by a historian): item- and answer-level Pearson r as in the
 * ProHist paper, plus every disagreement, largest score gap first. Answers whose text differs
 * between the runs (a generator that is not deterministic, a changed prompt) are left out and
 * counted in `differentAnswers`: judges can only be compared on the same answer.
 */
export function judgeAgreementRows(
  runA: LoadedRun,
  runB: LoadedRun,
): { agreement: JudgeAgreement; disagreements: JudgeDisagreement[]; differentAnswers: number } {
  const answerB = new Map(runB.records.map((r) => [r.key, r.response?.text]));
  const different = new Set(runA.records.filter((r) => answerB.has(r.key) && answerB.get(r.key) !== r.response?.text).map((r) => r.key));
  const a = verdictRecords(runA).filter((r) => !different.has(String(r.id)));
  const b = verdictRecords(runB).filter((r) => !different.has(String(r.id)));
  const agreement = judgeAgreement(a, b);
  const byKey = new Map(b.map((r) => [String(r.id), r]));
  const questions = new Map(runA.records.map((r) => [r.key, r.question]));
  const disagreements: JudgeDisagreement[] = [];
  for (const ra of a) {
    const rb = byKey.get(String(ra.id));
    if (!rb) continue;
    const items = Object.keys(ra.verdicts!)
      .filter((k) => k in rb.verdicts! && ra.verdicts![k] !== rb.verdicts![k])
      .map((k) => ({ item: k, a: ra.verdicts![k]!, b: rb.verdicts![k]! }));
    if (items.length) {
      disagreements.push({ key: String(ra.id), question: questions.get(String(ra.id)) ?? '', scoreA: ra.score ?? 0, scoreB: rb.score ?? 0, items });
    }
  }
  disagreements.sort((x, y) => Math.abs(y.scoreA - y.scoreB) - Math.abs(x.scoreA - x.scoreB) || (x.key < y.key ? -1 : 1));
  return { agreement, disagreements, differentAnswers: different.size };
}
