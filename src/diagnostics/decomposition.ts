import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { reduceSamples, type Reducer } from '../statistics/samples.js';
import { goldRankBucket } from './evidence.js';
import { EVIDENCE_STATUSES, GOLD_RANK_BUCKETS, type Decomposition, type Evidence } from '../runFiles/diagnosis.js';
import { groupBy } from './groupBy.js';

const OUTCOMES = ['helped', 'hurt', 'unchanged'] as const;
type Outcome = (typeof OUTCOMES)[number];

/** Helped when the paired difference reaches +δ, hurt at −δ or below, unchanged in between. */
export function outcomeOf(diff: number, delta: number): Outcome {
  return diff >= delta ? 'helped' : diff <= -delta ? 'hurt' : 'unchanged';
}

export interface PairedItem {
  itemKey: string;
  diff: number;
  evidence?: Evidence;
}

/**
 * The items both sides scored, with the condition's evidence; repeated samples are reduced per side
 * by the run's reducer, the evidence is the first sample's.
 */
export function pairedItems(condition: RunItemRecord[], baseline: RunItemRecord[], evidenceOf: (record: RunItemRecord) => Evidence | undefined, reducer: Reducer = 'mean'): PairedItem[] {
  const scored = (r: RunItemRecord) => r.score.status === 'scored' && r.score.score !== null;
  const byItem = (records: RunItemRecord[]) =>
    groupBy(records.filter(scored).sort((a, b) => (a.sample ?? 0) - (b.sample ?? 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), (r) => `${r.benchmark}:${r.itemId}`);
  const base = byItem(baseline);
  const out: PairedItem[] = [];
  for (const [itemKey, samples] of [...byItem(condition)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const against = base.get(itemKey);
    if (!against) continue;
    const diff = reduceSamples(samples.map((r) => r.score.score!), reducer) - reduceSamples(against.map((r) => r.score.score!), reducer);
    const evidence = evidenceOf(samples[0]!);
    out.push({ itemKey, diff, ...(evidence ? { evidence } : {}) });
  }
  return out;
}

/**
 * Each item helped, hurt or unchanged; a group's contribution is its differences' sum ÷ n, so the three
 * add up to the mean difference exactly. Items with gold are split by where their evidence went.
 */
export function decompose(items: PairedItem[], options: { baseline: string; delta: number }): Decomposition {
  const n = items.length;
  const share = () => ({ n: 0, contribution: 0 });
  const groups = { helped: share(), hurt: share(), unchanged: share() };
  const withGold = items.some((item) => item.evidence);
  const byEvidence = Object.fromEntries(OUTCOMES.map((o) => [o, Object.fromEntries(EVIDENCE_STATUSES.map((s) => [s, share()]))])) as NonNullable<Decomposition['byEvidence']>;
  const byGoldRank = Object.fromEntries(OUTCOMES.map((o) => [o, Object.fromEntries(GOLD_RANK_BUCKETS.map((b) => [b, share()]))])) as NonNullable<Decomposition['byGoldRank']>;
  let sum = 0;
  for (const item of items) {
    const outcome = outcomeOf(item.diff, options.delta);
    const part = item.diff / n;
    sum += item.diff;
    groups[outcome].n++;
    groups[outcome].contribution += part;
    if (item.evidence) {
      byEvidence[outcome]![item.evidence.status]!.n++;
      byEvidence[outcome]![item.evidence.status]!.contribution += part;
      const bucket = goldRankBucket(item.evidence.bestRank);
      byGoldRank[outcome]![bucket]!.n++;
      byGoldRank[outcome]![bucket]!.contribution += part;
    }
  }
  return {
    baseline: options.baseline,
    delta: options.delta,
    n,
    meanDiff: n ? sum / n : null,
    ...groups,
    byEvidence: withGold ? byEvidence : null,
    byGoldRank: withGold ? byGoldRank : null,
  };
}
