import { conditionMean, pairedDifference, type Observation } from '../statistics/run.js';
import { reduceSamples } from '../statistics/samples.js';
import { decompose, pairedItems } from '../diagnostics/decomposition.js';
import { defaultDelta } from '../scoring/metrics.js';
import type { ModalityComparison, PairedCell } from '../runFiles/summary.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { isScored, itemKeyOf, type RunStatistics } from './observations.js';
import { groupBy } from '../diagnostics/groupBy.js';


/** LongHisDoc's Table 3 breakdowns, in its order: evidence modality, question type (`category`), answer type. */
export const MODALITY_BREAKDOWN_KEYS = ['evidence_modal', 'category', 'answer_type'] as const;

/** Whether a record's prompt showed the model page images (`prompt[].images`). */
export const showsImages = (record: Pick<RunItemRecord, 'prompt'>): boolean => record.prompt.some((m) => (m.images?.length ?? 0) > 0);


/** Both conditions' means on the questions both scored, and the paired difference condition − against, through `statistics/`. */
function pairedCell(condition: Observation[], against: Observation[], stats: RunStatistics, salt: string): PairedCell {
  const both = new Set(against.map((o) => o.itemKey));
  const mine = condition.filter((o) => both.has(o.itemKey));
  const paired = new Set(mine.map((o) => o.itemKey));
  const d = pairedDifference(mine, against, stats.settings, `${salt}|diff`);
  return {
    n: d.n,
    condition: conditionMean(mine, stats.settings, `${salt}|condition`),
    against: conditionMean(
      against.filter((o) => paired.has(o.itemKey)),
      stats.settings,
      `${salt}|against`,
    ),
    meanDiff: d.meanDiff,
    ciLow: d.ciLow,
    ciHigh: d.ciHigh,
    sharePositive: d.sharePositive,
  };
}

/** One record per question (its first scored sample's, scored by the reducer over its scored samples): what the decomposition compares. */
function onePerQuestion(records: RunItemRecord[], stats: RunStatistics): RunItemRecord[] {
  if (!stats.settings.repeatedSamples) return records;
  return [...groupBy(records, itemKeyOf).values()].map((answers) => {
    const scored = answers.filter(isScored).sort((a, b) => (a.sample ?? 0) - (b.sample ?? 0));
    if (!scored.length) return answers[0]!;
    return { ...scored[0]!, score: { ...scored[0]!.score, score: reduceSamples(scored.map((r) => r.score.score!), stats.settings.reducer) } };
  });
}

/**
 * Each image condition against each text-only `versus` condition of its model, on the questions both
 * scored: means and paired Δ overall and per Table 3 value, and the help/hurt decomposition.
 */
export function compareModalities(sortedRecords: RunItemRecord[], options: { models: string[]; conditions: string[]; versus: string[] }, stats: RunStatistics): ModalityComparison[] {
  const byCell = groupBy(sortedRecords, (r) => `${r.model}\u0000${r.condition}`);
  const out: ModalityComparison[] = [];
  for (const model of options.models) {
    const cell = (condition: string) => byCell.get(`${model}\u0000${condition}`) ?? [];
    const imageConditions = options.conditions.filter((c) => cell(c).some(showsImages));
    const references = options.versus.filter((c) => cell(c).length > 0 && !cell(c).some(showsImages));
    for (const condition of imageConditions) {
      const mine = stats.observations(cell(condition));
      // A question's groups are its first scored answer's.
      const groupsOf = new Map<string, Record<string, string>>();
      for (const r of cell(condition).filter(isScored)) if (!groupsOf.has(itemKeyOf(r))) groupsOf.set(itemKeyOf(r), r.groups);
      for (const against of references) {
        const theirs = stats.observations(cell(against));
        const salt = `${model}|${condition}|vs|${against}`;
        const shared = new Set(theirs.map((o) => o.itemKey));
        const byGroup: ModalityComparison['byGroup'] = {};
        for (const key of MODALITY_BREAKDOWN_KEYS) {
          const valueOf = (itemKey: string) => groupsOf.get(itemKey)?.[key];
          const values = [...new Set(mine.flatMap((o) => (shared.has(o.itemKey) && valueOf(o.itemKey) !== undefined ? [valueOf(o.itemKey)!] : [])))].sort();
          if (!values.length) continue;
          byGroup[key] = Object.fromEntries(values.map((value) => [value, pairedCell(mine.filter((o) => valueOf(o.itemKey) === value), theirs, stats, `${salt}|${key}|${value}`)]));
        }
        const metric = cell(condition)[0]!.score.metric;
        out.push({
          model,
          condition,
          against,
          overall: pairedCell(mine, theirs, stats, salt),
          byGroup,
          // Evidence status needs the diagnostics stage; the split by outcome is what items.jsonl alone gives.
          decomposition: decompose(pairedItems(onePerQuestion(cell(condition), stats), onePerQuestion(cell(against), stats), () => undefined), { baseline: against, delta: defaultDelta(metric) }),
        });
      }
    }
  }
  return out;
}
