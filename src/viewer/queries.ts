/** The viewer's data transforms, shared by the server, the bundle writer and the client (on a bundle's files). No I/O. */
import { pairedDifference, salts, type Observation, type StatisticsSettings } from '../statistics/run.js';
import { reduceSamples } from '../statistics/samples.js';
import { labelBasisLines } from '../report/labelBasis.js';
import type { AnswerQuery, AnswerRow, CellView, CompareItem, CompareQuery, CompareResult, CostSide, Outcome, RunDetail } from './api.js';

/** What Compare needs of one answer. */
export interface ScoreRow extends Pick<AnswerRow, 'key' | 'itemKey' | 'itemId' | 'category' | 'question' | 'status' | 'score'> {
  /** Which of the item's repeated samples (0: the first; absent: 0). */
  sample?: number;
  /** The answer's cluster key under the run's `scoring.cluster` (absent: not clustered). */
  cluster?: string;
}

const isScored = (r: ScoreRow) => r.status === 'scored' && r.score !== null;

export function outcomeOf(diff: number): Outcome {
  return diff > 0 ? 'better' : diff < 0 ? 'worse' : 'same';
}

/** One item's scored answers: its first answer (the row Compare links to) and every sample's score. */
interface ItemScores {
  first: ScoreRow;
  scores: number[];
}

function scoresByItem(rows: ScoreRow[]): Map<string, ItemScores> {
  const byItem = new Map<string, ItemScores>();
  for (const r of [...rows].sort((x, y) => (x.sample ?? 0) - (y.sample ?? 0))) {
    if (!isScored(r)) continue;
    const seen = byItem.get(r.itemKey);
    if (seen) seen.scores.push(r.score!);
    else byItem.set(r.itemKey, { first: r, scores: [r.score!] });
  }
  return byItem;
}

/** How Compare estimates B − A: the run's statistics settings (B's), and the salt naming the comparison. */
export interface CompareStatistics {
  settings: Omit<StatisticsSettings, 'repeatedSamples'>;
  salt: string;
  /** The same comparison in B's summary (B − A against a reference of its families): where Holm and BH come from. */
  summarized: { pHolm?: number | null; pBH?: number | null; family?: string } | null;
}

/**
 * The run's own settings and the salt its summary uses for this comparison: within one run and
 * model, b − a is the summary's difference against a (the baseline's or a `versus` condition's
 * salt), so the interval, p and adjusted p are the summary's to the last digit; across runs, the
 * same model and condition is `hisrag compare`'s B − A.
 */
export function compareStatistics(query: CompareQuery, detailB: RunDetail, sameRun: boolean): CompareStatistics {
  const { resamples, seed, confidence, reducer, cluster } = detailB.bootstrap;
  const settings = { resamples, seed, confidence, reducer: reducer ?? 'mean', cluster: cluster ?? null };
  const { a, b } = query;
  if (sameRun && a.model === b.model) {
    const summarized = [...detailB.cells.flatMap((c) => (c.paired ? [c.paired] : [])), ...(detailB.versus ?? [])].find((d) => d.model === b.model && d.condition === b.condition && d.baseline === a.condition);
    return { settings, salt: salts.paired(b.model, b.condition, a.condition, detailB.baseline), summarized: summarized ?? null };
  }
  const salt = a.model === b.model && a.condition === b.condition ? salts.acrossRuns(b.model, b.condition) : `${b.model}|${b.condition}|vs|${a.model}|${a.condition}`;
  return { settings, salt, summarized: null };
}

/**
 * Condition B against condition A on the items both scored (paired by `benchmark:itemId`): B − A
 * from the statistics module under the run's settings (`compareStatistics`), the figures the summary
 * and `hisrag compare` give; better / worse / same counts, and the items (the worst
 * first for `worse`, the best first for `better`, the largest changes first otherwise).
 */
export function compareRows(
  rowsA: ScoreRow[],
  rowsB: ScoreRow[],
  options: { outcome?: Outcome | 'all'; offset?: number; limit?: number; statistics: CompareStatistics },
): Omit<CompareResult, 'a' | 'b' | 'cost' | 'decomposition' | 'metric'> {
  const { settings } = options.statistics;
  const reducer = settings.reducer;
  const byItemA = scoresByItem(rowsA);
  const byItemB = scoresByItem(rowsB);
  const pairs: CompareItem[] = [];
  let unpairedB = 0;
  for (const [itemKey, b] of byItemB) {
    const a = byItemA.get(itemKey);
    if (!a) {
      unpairedB++;
      continue;
    }
    const scoreA = reduceSamples(a.scores, reducer);
    const scoreB = reduceSamples(b.scores, reducer);
    pairs.push({ itemKey, itemId: b.first.itemId, category: b.first.category, question: b.first.question, keyA: a.first.key, keyB: b.first.key, scoreA, scoreB, diff: scoreB - scoreA });
  }
  const maxSamples = (byItem: Map<string, ItemScores>) => [...byItem.values()].reduce((m, s) => Math.max(m, s.scores.length), 0);
  const repeated = [...rowsA, ...rowsB].some((r) => (r.sample ?? 0) > 0);
  const sorted = pairs.sort((x, y) => (x.itemKey < y.itemKey ? -1 : x.itemKey > y.itemKey ? 1 : 0));
  const counts: Record<Outcome, number> = { better: 0, worse: 0, same: 0 };
  for (const p of sorted) counts[outcomeOf(p.diff)]++;
  const observe = (side: string) => (r: ScoreRow): Observation => ({ itemKey: r.itemKey, condition: side, sample: r.sample ?? 0, score: r.score!, ...(settings.cluster && r.cluster !== undefined ? { cluster: r.cluster } : {}) });
  const d = pairedDifference(rowsB.filter(isScored).map(observe('b')), rowsA.filter(isScored).map(observe('a')), { ...settings, repeatedSamples: repeated }, options.statistics.salt);
  const summarized = options.statistics.summarized;
  const outcome = options.outcome ?? 'all';
  const listed = outcome === 'all' ? [...sorted] : sorted.filter((p) => outcomeOf(p.diff) === outcome);
  if (outcome === 'worse') listed.sort((x, y) => x.diff - y.diff);
  else if (outcome === 'better') listed.sort((x, y) => y.diff - x.diff);
  else listed.sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff));
  const offset = options.offset ?? 0;
  const limit = options.limit ?? 100;
  return {
    n: sorted.length,
    meanDiff: d.meanDiff,
    ciLow: d.ciLow,
    ciHigh: d.ciHigh,
    sharePositive: d.sharePositive,
    p: d.p,
    pHolm: summarized?.pHolm ?? null,
    pBH: summarized?.pBH ?? null,
    family: summarized?.family ?? null,
    counts,
    unpaired: { a: byItemA.size - sorted.length, b: unpairedB },
    samples: repeated ? { a: maxSamples(byItemA), b: maxSamples(byItemB), reducer } : null,
    items: { total: listed.length, offset, rows: listed.slice(offset, offset + limit) },
  };
}

/** An answer row with the texts full-text search looks at (the bundle keeps these per condition). */
export interface SearchableRow extends AnswerRow {
  groups: Record<string, string>;
  /** Lower-cased question, answer and reference, joined. */
  haystack: string;
}

/** The text full-text search runs over, as the server's index and the bundle store it. */
export function haystackOf(question: string, answer: string, reference: string | null): string {
  return `${question}\n${answer}\n${reference ?? ''}`.toLowerCase();
}

/** A page of a bundle's answers as the server's SQL gives it (`answersPage`); `other`: the `differsFrom` condition's. */
export function filterAnswerRows(
  rows: SearchableRow[],
  query: AnswerQuery,
  other?: Map<string, { score: number | null; status: string }>,
): { total: number; offset: number; rows: AnswerRow[] } {
  const [groupKey, groupValue] = splitGroup(query.group);
  const needle = query.q?.trim().toLowerCase() ?? '';
  const out: AnswerRow[] = [];
  for (const r of rows) {
    if (groupKey !== null && r.groups[groupKey] !== groupValue) continue;
    if (query.scoreMin !== undefined && (r.score === null || r.score < query.scoreMin)) continue;
    if (query.scoreMax !== undefined && (r.score === null || r.score > query.scoreMax)) continue;
    if (query.status === 'scored' && r.status !== 'scored') continue;
    if (query.status === 'failed' && r.status === 'scored') continue;
    if (query.status === 'empty' && !r.empty) continue;
    if (needle && !r.haystack.includes(needle)) continue;
    let otherScore: number | null | undefined;
    if (query.differsFrom && other) {
      const o = other.get(r.itemKey);
      if (!o) continue;
      if (o.score === r.score && o.status === r.status) continue;
      otherScore = o.score;
    }
    const { groups: _g, haystack: _h, ...row } = r;
    out.push(otherScore !== undefined ? { ...row, otherScore } : row);
  }
  sortAnswerRows(out, query.sort ?? 'item');
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 100;
  return { total: out.length, offset, rows: out.slice(offset, offset + limit) };
}

export function splitGroup(group: string | undefined): [string, string] | [null, null] {
  if (!group) return [null, null];
  const eq = group.indexOf('=');
  return eq > 0 ? [group.slice(0, eq), group.slice(eq + 1)] : [null, null];
}

/** Item order (benchmark, item id), or score ascending / descending with failures last. */
export function sortAnswerRows(rows: AnswerRow[], sort: 'item' | 'score' | '-score'): void {
  const byItem = (a: AnswerRow, b: AnswerRow) => (a.itemKey < b.itemKey ? -1 : a.itemKey > b.itemKey ? 1 : 0);
  if (sort === 'item') rows.sort(byItem);
  else {
    const sign = sort === 'score' ? 1 : -1;
    rows.sort((a, b) => {
      if (a.score === null || b.score === null) return a.score === b.score ? byItem(a, b) : a.score === null ? 1 : -1;
      return sign * (a.score - b.score) || byItem(a, b);
    });
  }
}

export type Factor = 'model' | 'method' | 'retriever' | 'corpus' | 'k';
export const FACTORS: Factor[] = ['model', 'method', 'retriever', 'corpus', 'k'];

/**
 * The value of a factor for a cell: `method` is the condition's strategy or method name; `corpus`
 * its chunking (the corpus its retriever reads); `k` its depth — k, or a context budget (`2000tok`).
 */
export function factorValue(cell: CellView, factor: Factor): string {
  if (factor === 'model') return cell.model;
  if (factor === 'method') return cell.strategy;
  if (factor === 'retriever') return cell.retriever ?? '(none)';
  if (factor === 'corpus') return cell.corpus ?? '(none)';
  return depthText(cell);
}

/** A cell's depth as the viewer shows it: `10` (k), `2000tok` (a context budget), `–` (none). */
export const depthText = (cell: Pick<CellView, 'k' | 'contextTokens'>): string => (cell.k !== null ? String(cell.k) : cell.contextTokens !== undefined ? `${cell.contextTokens}tok` : '–');

export interface Pivot {
  rows: string[];
  cols: string[];
  /** rows × cols; several cells in one slot (a factor left out) are all listed. */
  cells: CellView[][][];
}

/** The conditions as a rows × columns table by two factors (model, method, retriever, k), in the run's order. */
export function pivotCells(cells: CellView[], rowFactor: Factor, colFactor: Factor): Pivot {
  const order = (values: string[]) => {
    const unique = [...new Set(values)];
    // Depths sort numerically with closed-book's "–" first, then k, then budgets (`2000tok`); the rest keep the run's order.
    const rank = (v: string) => (v === '–' ? [0, 0] : [v.endsWith('tok') ? 2 : 1, parseInt(v, 10)]);
    return unique.every((v) => v === '–' || /^\d+(tok)?$/.test(v)) ? unique.sort((a, b) => rank(a)[0]! - rank(b)[0]! || rank(a)[1]! - rank(b)[1]!) : unique;
  };
  const rows = order(cells.map((c) => factorValue(c, rowFactor)));
  const cols = order(cells.map((c) => factorValue(c, colFactor)));
  const grid: CellView[][][] = rows.map(() => cols.map(() => []));
  for (const cell of cells) grid[rows.indexOf(factorValue(cell, rowFactor))]![cols.indexOf(factorValue(cell, colFactor))]!.push(cell);
  return { rows, cols, cells: grid };
}

/** Which answer file of a bundle holds an answer's page (FNV-1a of the record key). */
export function chunkOf(key: string, chunks: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  return h % Math.max(1, chunks);
}

/** Compare's answer from both runs' details and the two cells' rows, the same on the live server and in a bundle; null for an unknown cell. */
export function compareResult(query: CompareQuery, detailA: RunDetail, detailB: RunDetail, rowsA: ScoreRow[], rowsB: ScoreRow[]): CompareResult | null {
  const cellOf = (detail: RunDetail, ref: { model: string; condition: string }) => detail.cells.find((c) => c.model === ref.model && c.condition === ref.condition);
  const cellA = cellOf(detailA, query.a);
  const cellB = cellOf(detailB, query.b);
  if (!cellA || !cellB) return null;
  const sameRun = query.a.run === query.b.run;
  const result = compareRows(rowsA, rowsB, { outcome: query.outcome, offset: query.offset, limit: query.limit, statistics: compareStatistics(query, detailB, sameRun) });
  // B's decomposition is shown where it is against A: same run and model, A its baseline.
  const d = decompositionOf(cellB.diagnostics);
  const own = d && sameRun && query.a.model === query.b.model && d.baseline === query.a.condition;
  return {
    a: { ...query.a, mean: cellA.score.mean, scored: cellA.scored, answers: cellA.items },
    b: { ...query.b, mean: cellB.score.mean, scored: cellB.scored, answers: cellB.items },
    ...result,
    cost: { a: costSide(cellA.cost), b: costSide(cellB.cost) },
    decomposition: own ? (cellB.diagnostics as { decomposition: unknown }).decomposition : null,
    corrected: correctedOf(query, detailB, sameRun),
    metric: detailB.metric,
  };
}

/** B's Δ corrected with the run's labels, where A is its baseline (the judge check's pairs are against the baseline only). */
function correctedOf(query: CompareQuery, detail: RunDetail, sameRun: boolean): CompareResult['corrected'] {
  const check = detail.judgeCheck;
  if (!check || !sameRun || query.a.model !== query.b.model) return null;
  const difference = check.differences.find((d) => d.model === query.b.model && d.condition === query.b.condition && d.baseline === query.a.condition);
  return difference ? { difference, basis: labelBasisLines(check), stale: detail.labelsStale?.note ?? null } : null;
}

/** A cell's mean cost per scored answer as its summary gives it (the run's one figure; Compare never recomputes it). */
function costSide(cost: CellView['cost']): CostSide {
  if (!cost) return { n: 0, tokens: null, price: null, retrievalCalls: null, generationCalls: null, durationMs: null };
  const { n, promptTokens, completionTokens, price, retrievalCalls, generationCalls, durationMs } = cost;
  return { n, tokens: promptTokens + completionTokens, price, retrievalCalls, generationCalls, durationMs };
}

/** Reads a cell's diagnostics decomposition defensively (the diagnostics stage may be absent). */
export function decompositionOf(diagnostics: unknown): { baseline: string; delta: number; n: number; meanDiff: number | null; helped: { n: number; contribution: number }; hurt: { n: number; contribution: number }; unchanged: { n: number; contribution: number } } | null {
  if (!diagnostics || typeof diagnostics !== 'object') return null;
  const d = (diagnostics as { decomposition?: unknown }).decomposition;
  if (!d || typeof d !== 'object') return null;
  const x = d as Record<string, unknown>;
  const share = (v: unknown) => (v && typeof v === 'object' && typeof (v as { n?: unknown }).n === 'number' ? { n: (v as { n: number }).n, contribution: Number((v as { contribution?: unknown }).contribution ?? 0) } : null);
  const helped = share(x.helped), hurt = share(x.hurt), unchanged = share(x.unchanged);
  if (typeof x.baseline !== 'string' || !helped || !hurt || !unchanged) return null;
  return { baseline: x.baseline, delta: Number(x.delta ?? 0), n: Number(x.n ?? 0), meanDiff: typeof x.meanDiff === 'number' ? x.meanDiff : null, helped, hurt, unchanged };
}

/** One answer as a bundle stores it per condition: what the table shows, searches and compares. */
export interface BundleRow extends SearchableRow, ScoreRow {}

/** A bundle's file for one run: its detail, which file holds each condition's rows, and how many item chunks it has. */
export interface BundleRunFile {
  detail: RunDetail;
  /** `${model}\u0000${condition}` → number of its rows file (`c<n>.js`). */
  cellFiles: Record<string, number>;
  /** Answer files (`i<n>.js`: answer pages, by `chunkOf(key)`). */
  chunks: number;
}

export const cellFileKey = (model: string, condition: string) => `${model}\u0000${condition}`;
