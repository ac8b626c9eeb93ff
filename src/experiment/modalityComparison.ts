import type { ModalityComparison, PairedCell } from '../runFiles/summary.js';
import { pairedBootstrap } from '../scoring/bootstrap.js';
import { clusteredBootstrap } from '../scoring/estimators/clusteredBootstrap.js';
import { decompose, defaultDelta, pairedItems } from '../diagnostics/decomposition.js';
import { meanWithCi, seedFor } from './estimates.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';

/**
 * The breakdowns of LongHisDoc's Table 3 (image input against OCR input), in its order: evidence
 * modality (text / layout / visual), question type (`category`: Single Page, Cross Pages, Multi
 * Hop, Unanswerable) and answer type. Keys a run's records do not carry are left out.
 */
export const MODALITY_BREAKDOWN_KEYS = ['evidence_modal', 'category', 'answer_type'] as const;

/** Whether a record's prompt showed the model page images (`prompt[].images`). */
export const showsImages = (record: Pick<RunItemRecord, 'prompt'>): boolean => record.prompt.some((m) => (m.images?.length ?? 0) > 0);

const isScored = (r: RunItemRecord) => r.score.status === 'scored' && r.score.score !== null;
const itemKey = (r: RunItemRecord) => `${r.benchmark}:${r.itemId}`;

interface Pair {
  record: RunItemRecord;
  condition: number;
  against: number;
}

function pairedCell(pairs: Pair[], options: { resamples: number; seed: number; cluster?: ((record: RunItemRecord) => string) | null }, salt: string): PairedCell {
  const a = pairs.map((p) => p.condition);
  const b = pairs.map((p) => p.against);
  const empty = { meanDiff: null, ciLow: null, ciHigh: null, sharePositive: null };
  const seed = seedFor(options.seed, `${salt}|diff`);
  // Clustered runs (LongHisDoc volumes) resample whole clusters, as every other interval of the summary does.
  const clusters = options.cluster ? pairs.map((p) => options.cluster!(p.record)) : undefined;
  const d = !a.length
    ? null
    : clusters
      ? clusteredBootstrap(a.map((x, i) => x - b[i]!), clusters, { resamples: options.resamples, seed })
      : pairedBootstrap(a, b, { resamples: options.resamples, seed });
  return {
    n: a.length,
    condition: meanWithCi(a, options, `${salt}|condition`, clusters),
    against: meanWithCi(b, options, `${salt}|against`, clusters),
    ...(d ? { meanDiff: 'meanDiff' in d ? d.meanDiff : d.mean, ciLow: d.ciLow, ciHigh: d.ciHigh, sharePositive: d.sharePositive } : empty),
  };
}

/**
 * Each condition whose prompts showed page images against each text-only `versus` condition of the
 * same model, on the questions both scored: overall and per value of the Table 3 breakdowns, both
 * means and the paired difference with 95% bootstrap CIs, and the help/hurt decomposition (the
 * diagnostics' own, with `against` as its baseline). Empty when no such pair exists.
 */
export function compareModalities(
  sortedRecords: RunItemRecord[],
  options: { models: string[]; conditions: string[]; versus: string[]; resamples: number; seed: number; cluster?: ((record: RunItemRecord) => string) | null },
): ModalityComparison[] {
  const byCell = new Map<string, RunItemRecord[]>();
  for (const r of sortedRecords) {
    const key = `${r.model}\u0000${r.condition}`;
    const list = byCell.get(key);
    if (list) list.push(r);
    else byCell.set(key, [r]);
  }
  const out: ModalityComparison[] = [];
  for (const model of options.models) {
    const cell = (condition: string) => byCell.get(`${model}\u0000${condition}`) ?? [];
    const imageConditions = options.conditions.filter((c) => cell(c).some(showsImages));
    const references = options.versus.filter((c) => cell(c).length > 0 && !cell(c).some(showsImages));
    for (const condition of imageConditions) {
      for (const against of references) {
        const reference = new Map(cell(against).filter(isScored).map((r) => [itemKey(r), r.score.score!]));
        const pairs: Pair[] = cell(condition)
          .filter((r) => isScored(r) && reference.has(itemKey(r)))
          .map((r) => ({ record: r, condition: r.score.score!, against: reference.get(itemKey(r))! }));
        const salt = `${model}|${condition}|vs|${against}`;
        const byGroup: ModalityComparison['byGroup'] = {};
        for (const key of MODALITY_BREAKDOWN_KEYS) {
          const values = [...new Set(pairs.flatMap((p) => (p.record.groups[key] !== undefined ? [p.record.groups[key]!] : [])))].sort();
          if (!values.length) continue;
          byGroup[key] = Object.fromEntries(values.map((value) => [value, pairedCell(pairs.filter((p) => p.record.groups[key] === value), options, `${salt}|${key}|${value}`)]));
        }
        const metric = cell(condition)[0]!.score.metric;
        out.push({
          model,
          condition,
          against,
          overall: pairedCell(pairs, options, salt),
          byGroup,
          // Evidence status needs the diagnostics stage; the split by outcome is what items.jsonl alone gives.
          decomposition: decompose(pairedItems(cell(condition), cell(against), () => undefined), { baseline: against, delta: defaultDelta(metric) }),
        });
      }
    }
  }
  return out;
}
