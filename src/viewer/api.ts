/**
 * The viewer's one API: the JSON the server answers and a bundle stores, the interface the client
 * reaches either through, and the query-string codec both sides use, so that they cannot drift apart.
 */
import type { CellSummary, JudgeCheckSummary, PairedDifference, ModalityComparison } from '../runFiles/summary.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { Reducer } from '../statistics/samples.js';

export type RunStatus = 'in progress' | 'done' | 'interrupted' | 'failed';

/** Where the live server's background indexing of a run's answers (items.jsonl) stands. */
export interface IndexState {
  /** `ready` once every complete line of items.jsonl is in the index (answers, search, compare need it). */
  state: 'indexing' | 'ready';
  /** Bytes of items.jsonl in the index, and the file's size. */
  bytes: number;
  totalBytes: number;
  /** Answers in the index so far. */
  answers: number;
}

/** `/api/indexing`: the server's index cache and what this start has indexed (a second start of unchanged runs: nothing). */
export interface IndexingStatus {
  cacheDir: string;
  runs: number;
  /** Runs whose answers are all indexed. */
  ready: number;
  bytes: number;
  totalBytes: number;
  /** Since the server started: lines and bytes read into an index, indexes started over (file truncated or replaced), indexes extended. */
  indexed: IndexCounters;
}

/** What this process has indexed since it started (a second start of unchanged runs: all zero). */
export interface IndexCounters {
  /** Lines of items.jsonl read into an index. */
  lines: number;
  bytes: number;
  /** Indexes started over because their items.jsonl was truncated or replaced (or the cache was unusable). */
  rebuilds: number;
  /** Indexes extended from where an earlier start (or request) stopped. */
  extended: number;
}

/** One line of the run list. */
export interface RunListEntry {
  id: string;
  experiment: string;
  startedAt: string | null;
  finishedAt: string | null;
  status: RunStatus;
  /** Why the run stopped (`stoppedBecause` in its manifest), for failed runs. */
  stoppedBecause: string | null;
  /** Run files that could not be read (a damaged or hand-edited manifest.json or summary.json), each naming the file and field; the run is shown without them. */
  problems: string[];
  models: string[];
  conditions: string[];
  /** Benchmark names of the run's answers (`prohist`, `longhisdoc` …). */
  benchmarks: string[];
  /** Answers recorded so far, and how many the run plans (null when the manifest does not say). */
  answers: number;
  total: number | null;
  /** Distinct questions. */
  items: number;
  baseline: string;
  best: { model: string; condition: string; mean: number; ciLow: number | null; ciHigh: number | null } | null;
  /** Mean over the run's answers of tokens (prompt + completion) and price per answer. */
  cost: { tokens: number | null; price: number | null; estimated: boolean };
  failures: number;
  empty: number;
  /** Bumped whenever the run's answers or manifest change: the client refetches what it shows. */
  version: number;
  /** The live server's indexing of the run's answers (absent in a bundle, whose answers are all there). */
  index?: IndexState;
}

/** A summary cell with its paired difference against the baseline and, where present, its diagnostics. */
export interface CellView extends Omit<CellSummary, 'diagnostics'> {
  paired: PairedDifference | null;
  /** `src/runFiles/diagnosis.ts` CellDiagnostics, when the run was diagnosed (read defensively). */
  diagnostics?: unknown;
}

export interface ChartView {
  model: string;
  /** Vega-Lite specs from the project's one chart module (`src/figures/`), the same the report renders to SVG; the client embeds them interactively. */
  depth: Record<string, unknown> | null;
  /** P(best k) per depth curve (`probabilityBestFigure`). */
  pBest: Record<string, unknown> | null;
  cost: Record<string, unknown> | null;
}

export interface RunDetail {
  run: RunListEntry;
  baseline: string;
  /** The run's bootstrap settings, and how it reduces an item's repeated samples to one score (`scoring.reducer`). */
  /** `cluster`: the field its intervals are clustered over (summary.json's `cluster`; null or absent: over questions). */
  bootstrap: { resamples: number; seed: number; confidence: number; reducer?: Reducer; cluster?: string | null };
  cells: CellView[];
  /** The metric of the means (summary.json's `metric`, or its cells'): `rs`, `accuracy`, `rougeL` … (`scoring/metrics.ts` names it). */
  metric?: string;
  /** Differences against the `scoring.versus` conditions (summary.json's `versus`), with their adjusted p. */
  versus?: PairedDifference[];
  /** Breakdown keys the answers carry (category, task, dynasty …). */
  groupKeys: string[];
  /** Values of each group key, for the answer filters. */
  groupValues: Record<string, string[]>;
  charts: ChartView[];
  /** Image conditions against the text-only `scoring.versus` conditions, by evidence modality, type and answer type (summary.json's `byModality`); empty without such a pair. */
  byModality: ModalityComparison[];
  /** The judge checked against the human labels beside the answers (summary.json's `judgeCheck`); absent without labels. */
  judgeCheck?: JudgeCheckSummary;
  /**
   * Set while the judge check shown is not current with the run's label files (labels saved after
   * summary.json was written, being refreshed; or a run without summary.json, whose figures here leave
   * labels out): what is stale and how to refresh it; `refreshing`: the viewer is rewriting it, and the page polls until it is done.
   */
  labelsStale?: { note: string; refreshing: boolean };
  /** Whether the run has a report.html the server can serve (`/runs/<id>/report.html`). */
  report: boolean;
}

export type StatusFilter = 'all' | 'scored' | 'failed' | 'empty';

/** A page of one condition's answers, filtered. */
export interface AnswerQuery {
  run: string;
  model: string;
  condition: string;
  /** `key=value` of a group (`category=名词解释`). */
  group?: string;
  scoreMin?: number;
  scoreMax?: number;
  status?: StatusFilter;
  /** Only answers whose score or status differs from this condition's (same run and model). */
  differsFrom?: string;
  /** Full-text search over question, answer and reference (case-insensitive substring). */
  q?: string;
  sort?: AnswerSort;
  offset?: number;
  limit?: number;
}

export type AnswerSort = 'item' | 'score' | '-score';

export interface AnswerRow {
  key: string;
  itemKey: string;
  itemId: string;
  category: string;
  /** First characters of the question and answer (the answer page has them whole). */
  question: string;
  answer: string;
  score: number | null;
  status: 'scored' | 'judge_failed' | 'generation_failed';
  empty: boolean;
  tokens: number | null;
  /** The `differsFrom` condition's score for the same item, when asked. */
  otherScore?: number | null;
}

export interface AnswerPage {
  total: number;
  offset: number;
  rows: AnswerRow[];
  /** Present while the run's answers are still being indexed (rows empty then): ask again. */
  indexing?: IndexState;
}

/** One passage of an answer, in rank order, with what became of it. */
export interface PassageView {
  id: string;
  rank: number;
  score: number;
  title: string;
  text: string;
  page?: number;
  firstStage?: { rank: number; score: number };
  rerankFallback?: string;
  /** Placed in the final prompt (`contextIds`). */
  inPrompt: boolean;
  /** Gold evidence of the item (its gold chunk ids or evidence pages). */
  gold: boolean;
  /** Gold claims (diagnostics) this passage entails, by number (1-based). */
  supportsGoldClaims: number[];
}

export interface ItemInfo {
  reference: string | null;
  rubrics: string | null;
  /** MCQ letters or LongHisDoc gold answer, as text. */
  answer: string | null;
  /** The gold evidence the benchmark names (chunk ids, or `page:<n>`); empty when it names none. */
  gold: string[];
}

export interface OtherAnswer {
  run: string;
  key: string;
  model: string;
  condition: string;
  score: number | null;
  status: string;
  answer: string;
}

/** A page image the model was shown (`prompt[].images`), in prompt order. */
export interface ImageView {
  /** Index of the image's folder in the run manifest's `imageDirs` (the only folders served); null when the run does not list it. */
  dir: number | null;
  /** Path inside that folder (`<doc_id>/page_<n>.jpg`). */
  path: string;
  docId: string;
  page: number;
  width: number;
  height: number;
  bytes: number;
  /** The prompt message (index) that showed it. */
  message: number;
  /** One of the item's gold evidence pages (same document). */
  evidence: boolean;
  /** A bundle's copy of the thumbnail, relative to its index.html (bundles carry no full-size images). */
  thumbFile?: string;
}

export interface AnswerDetail {
  run: string;
  record: Omit<RunItemRecord, 'diagnostics'> & { diagnostics?: unknown };
  item: ItemInfo | null;
  passages: PassageView[];
  /** The page images the prompt showed, in prompt order; empty for text prompts. */
  images: ImageView[];
  /** The same question's answers in the run's other conditions (and models). */
  others: OtherAnswer[];
}

/** A condition of some run: what Compare puts side by side. */
export interface ConditionRef {
  run: string;
  model: string;
  condition: string;
}

export type Outcome = 'better' | 'worse' | 'same';

export interface CompareQuery {
  a: ConditionRef;
  b: ConditionRef;
  outcome?: Outcome | 'all';
  offset?: number;
  limit?: number;
}

export interface CompareItem extends Pick<AnswerRow, 'itemKey' | 'itemId' | 'category' | 'question'> {
  keyA: string;
  keyB: string;
  scoreA: number;
  scoreB: number;
  diff: number;
}

export interface CostSide {
  n: number;
  tokens: number | null;
  price: number | null;
  retrievalCalls: number | null;
  generationCalls: number | null;
  durationMs: number | null;
}

export interface CompareResult {
  a: ConditionRef & { mean: number | null; scored: number; answers: number };
  b: ConditionRef & { mean: number | null; scored: number; answers: number };
  /** Items scored under both (paired by benchmark and item id). */
  n: number;
  /** Paired mean difference b − a with its 95% interval (the statistics module, under the run's settings). */
  meanDiff: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  sharePositive: number | null;
  /** Sign-flip p of b − a; Holm and BH over the summary's family when the run's summary has this comparison (else null). */
  p: number | null;
  pHolm: number | null;
  pBH: number | null;
  family: string | null;
  counts: Record<Outcome, number>;
  /** Items only one side scored (failed, or not in the other run). */
  unpaired: { a: number; b: number };
  /** Repeated samples (`samples: n`): the most answers an item has on each side, and how they were reduced to its score; null with one answer an item. */
  samples: { a: number; b: number; reducer: Reducer } | null;
  cost: { a: CostSide; b: CostSide };
  /** The diagnostics' help/hurt decomposition of b against a, when b's cell was diagnosed against a. */
  decomposition: unknown;
  /**
   * With human labels, where A is B's baseline in one run and model: the Δ corrected with them
   * (summary.json's judge check) beside the judge-only one, whose labels they are, and whether the
   * judge check is stale (labels saved after the summary). Null otherwise.
   */
  corrected?: { difference: JudgeCheckSummary['differences'][number]; basis: string[]; stale: string | null } | null;
  /** B's run's metric (`scoring/metrics.ts` names it and its scale: the δ above is on that scale). */
  metric?: string | undefined;
  /** The list of items, filtered by `outcome`, worst (or best) first. */
  items: { total: number; offset: number; rows: CompareItem[] };
}

/** How the client reaches data: the live server, or a static bundle's files. */
export interface ViewerApi {
  readonly live: boolean;
  runs(): Promise<RunListEntry[]>;
  run(id: string): Promise<RunDetail>;
  answers(query: AnswerQuery): Promise<AnswerPage>;
  answer(run: string, key: string): Promise<AnswerDetail>;
  compare(query: CompareQuery): Promise<CompareResult>;
  /** Link to the run's report.html, or null. */
  reportUrl(run: string): string | null;
  /** Where a page image (`thumb`: its thumbnail) is served, or null where it is not (a folder the run does not list; full size in a bundle). */
  imageUrl(run: string, image: ImageView, size: 'thumb' | 'full'): string | null;
}

/** The answer query's parameters, in URL order, and the values a URL leaves out (the defaults). */
const ANSWER_PARAMS = ['model', 'condition', 'group', 'scoreMin', 'scoreMax', 'status', 'differsFrom', 'q', 'sort', 'offset', 'limit'] as const;
const LEFT_OUT: Partial<Record<keyof AnswerQuery, unknown>> = { group: '', status: 'all', differsFrom: '', q: '', sort: 'item', offset: 0 };

/** The answer query as URL parameters (and back): the server's query string and the client's view state share it. */
export function answerQueryToParams(query: Omit<AnswerQuery, 'run'>): URLSearchParams {
  const p = new URLSearchParams();
  for (const key of ANSWER_PARAMS) if (query[key] !== undefined && query[key] !== LEFT_OUT[key]) p.set(key, String(query[key]));
  return p;
}

/** A number typed in a URL parameter or a field; undefined when blank or not a number. */
export const numberOrUndefined = (v: string | null): number | undefined => {
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** A list's page from URL parameters: offset from 0, at most 1000 rows (100 unless asked). */
const pageFromParams = (p: URLSearchParams) => ({
  offset: Math.max(0, Math.floor(numberOrUndefined(p.get('offset')) ?? 0)),
  limit: Math.min(1000, Math.max(1, Math.floor(numberOrUndefined(p.get('limit')) ?? 100))),
});

export function answerQueryFromParams(run: string, p: URLSearchParams): AnswerQuery {
  const status = p.get('status');
  const sort = p.get('sort');
  return {
    run,
    model: p.get('model') ?? '',
    condition: p.get('condition') ?? '',
    group: p.get('group') || undefined,
    scoreMin: numberOrUndefined(p.get('scoreMin')),
    scoreMax: numberOrUndefined(p.get('scoreMax')),
    status: status === 'scored' || status === 'failed' || status === 'empty' ? status : 'all',
    differsFrom: p.get('differsFrom') || undefined,
    q: p.get('q') || undefined,
    sort: sort === 'score' || sort === '-score' ? sort : 'item',
    ...pageFromParams(p),
  };
}

export function compareQueryToParams(query: CompareQuery): URLSearchParams {
  const { a, b, outcome, offset, limit } = query;
  const p = new URLSearchParams({ ar: a.run, am: a.model, ac: a.condition, br: b.run, bm: b.model, bc: b.condition });
  if (outcome && outcome !== 'all') p.set('outcome', outcome);
  if (offset) p.set('offset', String(offset));
  if (limit !== undefined) p.set('limit', String(limit));
  return p;
}

export function compareQueryFromParams(p: URLSearchParams): CompareQuery | null {
  const get = (k: string) => p.get(k) ?? '';
  const a = { run: get('ar'), model: get('am'), condition: get('ac') };
  const b = { run: get('br') || a.run, model: get('bm') || a.model, condition: get('bc') };
  if (!a.run || !a.model || !a.condition || !b.condition) return null;
  const outcome = p.get('outcome');
  return { a, b, outcome: outcome === 'better' || outcome === 'worse' || outcome === 'same' ? outcome : 'all', ...pageFromParams(p) };
}
