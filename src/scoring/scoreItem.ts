import type { BenchmarkItem } from '../benchmarks/types.js';
import { ConfigError, InputError } from '../errors.js';
import { countCjkChars } from '../text/cjk.js';
import type { ScoringCompat } from './compat.js';
import { extractByRules } from './extractors/rules.js';
import { scoreLongHisDoc } from './longhisdoc/accuracy.js';
import { extractBoxedLetters, scoreMcq } from './rubric/mcq.js';
import { parseRubric } from './rubric/parseRubric.js';
import { missingVerdicts, rubricScore } from './rubric/rubricScore.js';
import { stripThink } from './stripThink.js';
import { bertScore, type TokenVectors } from './textMetrics/bertScore.js';
import { bleu4 } from './textMetrics/bleu.js';
import { rougeL } from './textMetrics/rougeL.js';
import type { AnswerExtractor, Judge, RubricItem, Verdicts } from './types.js';
import type { ItemScore } from '../runFiles/itemRecord.js';

export interface ScoreDeps {
  /** Needed for `rubric` items that reach the judge. */
  judge?: Judge;
  /** LongHisDoc answer extraction; the offline rule-based extractor when absent. */
  extractor?: AnswerExtractor;
  /** `reference` reproduces the published ProHist-Bench scorer's quirks (see compat.ts). */
  compat?: ScoringCompat;
  /** BLEU-4 / ROUGE-L (and BERTScore with `tokenVectors`) against `referenceAnswer` (default true). */
  textMetrics?: boolean;
  /** Token vectors of the configured encoder, for BERTScore. */
  tokenVectors?: TokenVectors;
}

const scored = (metric: string, score: number, scoreRaw: number, more: Partial<ItemScore> = {}): ItemScore => ({
  status: 'scored',
  metric,
  score,
  scoreRaw,
  ...more,
});

/** A judge or extractor failure: no score, the error and what the failed step left. */
const failed = (metric: string, error: string, fields: Partial<ItemScore> = {}, more: Partial<ItemScore> = {}): ItemScore => ({
  status: 'judge_failed',
  metric,
  score: null,
  scoreRaw: null,
  ...fields,
  error,
  ...more,
});

async function referenceMetrics(answer: string, reference: string, deps: ScoreDeps): Promise<Record<string, number>> {
  const rouge = rougeL(answer, reference);
  const extra: Record<string, number> = { bleu4: bleu4(answer, reference), rougeL: rouge.f1 };
  if (deps.tokenVectors) {
    const bert = await bertScore(answer, reference, deps.tokenVectors);
    extra.bertScoreP = bert.precision;
    extra.bertScoreR = bert.recall;
    extra.bertScoreF1 = bert.f1;
  }
  return extra;
}

/**
 * Rubric Score from a judge's verdicts. A verdict missing for any item makes the answer a judge
 * failure (in `reference` mode a missing verdict counts as 0, as the published scorer does).
 * Shared by `scoreItem` and the re-scoring of saved judge outputs.
 */
export function scoreRubricVerdicts(
  rubricItems: RubricItem[],
  verdicts: Verdicts,
  options: { compat: ScoringCompat; judgeRaw?: string; strayLines: number; extra?: Record<string, number> },
): ItemScore {
  const raw = options.judgeRaw !== undefined ? { judgeRaw: options.judgeRaw } : {};
  const extraMetrics = options.extra ? { ...options.extra } : {};
  const missing = options.compat === 'reference' ? [] : missingVerdicts(rubricItems, verdicts);
  if (missing.length > 0) {
    const error = `judge output lacks verdicts for ${missing.join(', ')}`;
    return failed('rs', error, { verdicts, ...raw }, options.extra ? { extra: extraMetrics } : {});
  }
  const rs = rubricScore(rubricItems, verdicts);
  return scored('rs', rs.rs, rs.rsRaw, {
    verdicts,
    ...raw,
    ...(rs.possible <= 0 ? { rule: 'no-bonus-weights' } : {}),
    extra: { ...extraMetrics, judgeStrayLines: options.strayLines },
  });
}

/**
 * The shared scorer's single entry point (the runner and `hisrag score`), on the response without its
 * reasoning block. An empty answer or an over-length T4 essay scores 0 without a judge call. A judge
 * or extractor that fails yields `judge_failed` with its raw output and error, never a silent 0.
 */
export async function scoreItem(item: BenchmarkItem, response: string, deps: ScoreDeps = {}): Promise<ItemScore> {
  const compat = deps.compat ?? 'hisrag';
  const answer = stripThink(response).trim();
  const withText = deps.textMetrics !== false && item.referenceAnswer !== undefined;
  const extra = withText ? await referenceMetrics(answer, item.referenceAnswer!, deps) : undefined;
  const more = extra ? { extra } : {};

  switch (item.kind) {
    case 'mcq': {
      if (typeof item.answer !== 'string') throw new InputError(`item ${item.id}: answer: an MCQ item needs its letters (e.g. "ADEF")`);
      if (!answer) return scored('mcq', 0, 0, { rule: 'empty-answer', extracted: '', ...more });
      const letters = extractBoxedLetters(answer, { compat });
      const score = scoreMcq(letters, item.answer, { compat });
      return scored('mcq', score, score, { rule: 'mcq', extracted: letters, ...more });
    }
    case 'rubric': {
      if (!answer) return scored('rs', 0, 0, { rule: 'empty-answer', ...more });
      if (item.lengthConstraint !== undefined && countCjkChars(answer) > item.lengthConstraint) {
        return scored('rs', 0, 0, { rule: 'over-length', ...more });
      }
      if (item.rubrics === undefined) throw new InputError(`item ${item.id}: rubrics: missing`);
      if (!deps.judge) throw new ConfigError(`item ${item.id}: a rubric item needs a judge (judge.name: lexical | llm)`);
      const rubricItems = parseRubric(item.rubrics, { compat });
      const outcome = await deps.judge.judge({
        question: item.question,
        answer,
        rubricText: item.rubrics,
        rubricItems,
        ...(item.referenceAnswer !== undefined ? { referenceAnswer: item.referenceAnswer } : {}),
      });
      if (!outcome.ok) {
        return failed('rs', outcome.error, { judgeRaw: outcome.raw }, more);
      }
      return scoreRubricVerdicts(rubricItems, outcome.verdicts, { compat, judgeRaw: outcome.raw, strayLines: outcome.strayLines, extra });
    }
    case 'longhisdoc': {
      if (!item.answerType) throw new InputError(`item ${item.id}: answerType: missing`);
      if (item.answer === undefined) throw new InputError(`item ${item.id}: answer: missing`);
      if (!answer) return scored('accuracy', 0, 0, { rule: 'empty-answer', extracted: '', ...more });
      let extracted: string;
      try {
        extracted = deps.extractor
          ? await deps.extractor.extract({ question: item.question, response: answer, answerType: item.answerType })
          : extractByRules(answer, item.answerType);
      } catch (error) {
        return failed('accuracy', `answer extraction failed: ${(error as Error).message ?? String(error)}`, {}, more);
      }
      const accuracy = scoreLongHisDoc({ answerType: item.answerType, gold: item.answer, response: answer, extracted });
      return scored('accuracy', accuracy * 100, accuracy * 100, { extracted, ...more });
    }
    case 'reference': {
      if (item.referenceAnswer === undefined) throw new InputError(`item ${item.id}: referenceAnswer: missing`);
      const metrics = extra ?? (await referenceMetrics(answer, item.referenceAnswer, deps));
      return scored('rougeL', metrics.rougeL!, metrics.rougeL!, { ...(answer ? {} : { rule: 'empty-answer' }), extra: metrics });
    }
  }
}
