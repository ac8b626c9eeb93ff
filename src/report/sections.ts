import type { JudgeCheckSummary, RunSummary } from '../runFiles/summary.js';
import { sweptRetriever } from '../analysis/depthFamilies.js';
import { labelBasisLines } from './labelBasis.js';
import { SPAN_METRIC_DIGITS, SPAN_METRIC_HEADINGS, SPAN_RETRIEVAL_NOTE, spanRetrievalCells } from './spanRetrieval.js';

/**
 * The run's tables as data, one model for every export: the LaTeX tables, the CSV tables and the
 * report's sections that have no richer form of their own are all rendered from these, so that
 * they carry the same sections with the same numbers. Values are summary.json's, never re-estimated.
 */

export type Interval = { estimate: number | null; ciLow: number | null; ciHigh: number | null };
export type MeanTokens = { mean: number | null; tokens: number | null };

/** A column and how its values print: a name, a number, an estimate with its interval, a p-value, Holm / BH p-values, a mean with its context tokens. */
export type SectionColumn =
  | { kind: 'text'; head: string; csv: string; /** A figure with a unit (`3 tok`): right-aligned as numbers are. */ right?: boolean }
  | { kind: 'number'; head: string; csv: string; digits: number; sign?: boolean }
  | { kind: 'interval'; head: string; csv: string; digits: number; sign?: boolean }
  | { kind: 'pPair'; head: string; csv: string }
  | { kind: 'meanTokens'; head: string; csv: string };

export type SectionCell = string | number | null | Interval | [number | null, number | null] | MeanTokens;

export type SectionId = 'conditions' | 'depth-curves' | 'depth-families' | 'span-retrieval' | 'chunking-depth' | 'judge-check' | 'modality';

export interface SectionTable {
  /** File name of its LaTeX and CSV form (`conditions`, `conditions-2`, `judge-check-means` …). */
  name: string;
  section: SectionId;
  title: string;
  /** What the numbers are, in plain text (the LaTeX caption adds the interval method and the family). */
  note: string;
  columns: SectionColumn[];
  rows: SectionCell[][];
}

/** A number as the tables print it; a value that rounds to zero prints without a sign (`-0.00` would read as a finding). */
export function fixed(x: number | null | undefined, digits: number, sign = false): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  const text = x.toFixed(digits).replace(/^-(0\.?0*)$/, '$1');
  return sign && x > 0 && !/^0\.?0*$/.test(text) ? `+${text}` : text;
}

/** A p-value in three decimals (below 0.001: `<0.001`). */
export const pText = (p: number | null | undefined) => (p === null || p === undefined || Number.isNaN(p) ? '–' : p < 0.001 ? '<0.001' : p.toFixed(3));

/** A cell as text (names as they are; numbers to the column's digits; `–` where there is none). */
export function cellText(column: SectionColumn, value: SectionCell): string {
  switch (column.kind) {
    case 'text':
      return value === null ? '–' : String(value);
    case 'number':
      return fixed(value as number | null, column.digits, column.sign);
    case 'interval': {
      const e = value as Interval | null;
      if (!e || e.estimate === null) return '–';
      // A difference signs its estimate; its bounds print plain, as every Δ of the terminal and the report does.
      const f = (x: number | null) => fixed(x, column.digits);
      return e.ciLow === null && e.ciHigh === null ? fixed(e.estimate, column.digits, column.sign) : `${fixed(e.estimate, column.digits, column.sign)} [${f(e.ciLow)}, ${f(e.ciHigh)}]`;
    }
    case 'pPair': {
      const ps = value as [number | null, number | null] | null;
      return !ps || ps[0] === null ? '–' : `${pText(ps[0])} / ${pText(ps[1])}`;
    }
    case 'meanTokens': {
      const m = value as MeanTokens | null;
      return !m ? '' : `${fixed(m.mean, 2)} (${m.tokens === null ? '–' : Math.round(m.tokens)} tok)`;
    }
  }
}

/** The CSV header names of a column (an interval: estimate, low, high). */
export function csvHeads(column: SectionColumn): string[] {
  if (column.kind === 'interval') return [column.csv, `${column.csv}_ci_low`, `${column.csv}_ci_high`];
  if (column.kind === 'pPair') return [`${column.csv}_holm`, `${column.csv}_bh`];
  if (column.kind === 'meanTokens') return [column.csv, `${column.csv}_tokens`];
  return [column.csv];
}

/** A cell's CSV fields: unrounded numbers (the printed ones are these at the column's digits), empty where there is none. */
export function csvFields(column: SectionColumn, value: SectionCell): (string | number | null)[] {
  if (column.kind === 'interval') {
    const e = value as Interval | null;
    return [e?.estimate ?? null, e?.ciLow ?? null, e?.ciHigh ?? null];
  }
  if (column.kind === 'pPair') return [...((value as [number | null, number | null] | null) ?? [null, null])];
  if (column.kind === 'meanTokens') {
    const m = value as MeanTokens | null;
    return [m?.mean ?? null, m?.tokens ?? null];
  }
  return [value as string | number | null];
}

const text = (head: string, csv: string): SectionColumn => ({ kind: 'text', head, csv });
const interval = (head: string, csv: string, digits = 2, sign = false): SectionColumn => ({ kind: 'interval', head, csv, digits, sign });
const count = (head: string, csv: string): SectionColumn => ({ kind: 'number', head, csv, digits: 0 });
const meanInterval = (m: { mean: number | null; ciLow: number | null; ciHigh: number | null } | undefined): Interval | null => (m ? { estimate: m.mean, ciLow: m.ciLow, ciHigh: m.ciHigh } : null);
const diffInterval = (d: { meanDiff: number | null; ciLow: number | null; ciHigh: number | null } | undefined): Interval | null => (d ? { estimate: d.meanDiff, ciLow: d.ciLow, ciHigh: d.ciHigh } : null);
/** A section of one table, its file named after the section. */
const single = (section: SectionId, table: Omit<SectionTable, 'name' | 'section'>): SectionTable[] => [{ name: section, section, ...table }];

/**
 * The conditions table the terminal and the HTML report both format: which optional columns show, and
 * per model its rows (a cell, its paired Δ vs the baseline, its Δ vs each of `versusConditions`).
 */
export function conditionRows(summary: RunSummary) {
  const cells = summary.cells;
  const versusConditions = summary.versusConditions ?? [];
  const row = (cell: RunSummary['cells'][number]) => {
    const of = (p: RunSummary['paired'][number]) => p.model === cell.model && p.condition === cell.condition;
    // With labels: the Δ corrected with them (PPI++), beside the judge-only one.
    const corrected = summary.judgeCheck?.differences.find((d) => d.model === cell.model && d.condition === cell.condition && d.baseline === summary.baseline);
    return { cell, diff: summary.paired.find(of), corrected, versus: versusConditions.map((v) => summary.versus?.find((p) => of(p) && p.baseline === v)) };
  };
  return {
    labelled: Boolean(summary.judgeCheck?.differences.length),
    priced: cells.some((c) => c.cost?.price != null),
    clustered: Boolean(summary.cluster),
    tested: summary.paired.some((d) => d.p != null),
    sampled: cells.some((c) => c.sampling),
    limited: cells.some((c) => c.cost?.rateLimited !== undefined),
    noted: cells.some((c) => Object.keys(c.method ?? {}).length > 0),
    versusConditions,
    models: summary.models.map((model) => ({ model, rows: cells.filter((c) => c.model === model).map(row) })),
  };
}

/** Per model: each condition's mean, its paired Δ against the baseline and, with labels, the Δ corrected with them beside it. */
function conditionTables(summary: RunSummary): SectionTable[] {
  const check = summary.judgeCheck;
  const { labelled, models } = conditionRows(summary);
  return models.map(({ model, rows: conditions }, i) => {
    const family = summary.paired.find((p) => p.model === model && p.family)?.family;
    const rows = conditions.map(({ cell: c, diff: d, corrected }) => [c.condition, meanInterval(c.score), diffInterval(d), ...(labelled ? [corrected?.ppiPlusPlus ?? null] : []), d?.p == null ? null : ([d.pHolm ?? null, d.pBH ?? null] as [number | null, number | null]), c.scored]);
    const labels = labelled ? ` Δ corrected: the paired Δ corrected with the human labels (PPI++), beside the judge-only Δ. ${labelBasisLines(check!).join(' ')}` : '';
    return {
      name: `conditions${summary.models.length > 1 ? `-${i + 1}` : ''}`,
      section: 'conditions',
      title: `${model}: mean and paired difference Δ against ${summary.baseline}`,
      note: `p: paired sign-flip permutation test, adjusted by Holm / Benjamini–Hochberg${family ? ` over the family ${family}` : ''}.${labels}`,
      columns: [
        text('condition', 'condition'),
        interval('mean [95% CI]', 'mean'),
        interval('Δ [95% CI]', 'diff', 2, true),
        ...(labelled ? [interval(`Δ corrected${check!.synthetic ? ' (synthetic labels)' : ''} [95% CI]`, 'diff_ppi', 2, true)] : []),
        { kind: 'pPair', head: 'p (Holm / BH)', csv: 'p' } as SectionColumn,
        count('n', 'n'),
      ],
      rows,
    };
  });
}

/** The depth curves: slope, best depth with its P(best), deepest − best. */
function depthCurveTable(summary: RunSummary): SectionTable[] {
  const curves = summary.depthCurves ?? [];
  if (!curves.length) return [];
  const several = summary.models.length > 1;
  return single('depth-curves', {
    title: 'Depth curves',
    note: 'Paired over the questions scored at every depth; P(best): share of bootstrap resamples in which the best depth has the highest mean.',
    columns: [...(several ? [text('model', 'model')] : []), text('series', 'series'), interval('slope per ln k [95% CI]', 'slope'), { kind: 'text', head: 'best k', csv: 'best_k', right: true }, { kind: 'number', head: 'P(best)', csv: 'p_best', digits: 2 }, interval('deepest − best [95% CI]', 'deepest_minus_best', 2), count('n', 'n')],
    rows: curves.map((c) => {
      const budgets = c.unit === 'contextTokens';
      return [
        ...(several ? [c.model] : []),
        `${c.conditions[0]!.replace(/@\d+(tok)?$/, '')}${budgets ? ' (budgets)' : ''}`,
        c.slope,
        `${c.bestK}${budgets ? ' tok' : ''}`,
        c.probabilityBest[c.depths.indexOf(c.bestK)] ?? null,
        c.deepestMinusBest,
        c.n,
      ];
    }),
  });
}

/** The depth families (depth steps, chunkings at equal context): each comparison's Δ and p adjusted over its family. */
function depthFamilyTable(summary: RunSummary): SectionTable[] {
  const families = (summary.families ?? []).filter((f) => f.kind !== undefined);
  const comparisons = (summary.depthComparisons ?? []).filter((d) => families.some((f) => f.name === d.family));
  if (!comparisons.length) return [];
  const several = summary.models.length > 1;
  return single('depth-families', {
    title: 'Depths and chunkings compared',
    note: 'Paired Δ of each depth against the next shallower one, and of chunkings at equal context; p: paired sign-flip test, Holm / BH adjusted over its family.',
    columns: [text('family', 'family'), text('comparison', 'comparison'), interval('Δ [95% CI]', 'diff', 2, true), { kind: 'pPair', head: 'p (Holm / BH)', csv: 'p' }, count('n', 'n')],
    rows: comparisons.map((d) => [d.family ?? '', `${several ? `${d.model} ` : ''}${d.condition} − ${d.baseline}`, diffInterval(d), d.p == null ? null : [d.pHolm ?? null, d.pBH ?? null], d.n]),
  });
}

/** Span retrieval (chunking-independent): each metric's mean with its interval. */
function spanRetrievalTable(summary: RunSummary): SectionTable[] {
  const { cells, metrics } = spanRetrievalCells(summary);
  if (!cells.length) return [];
  const several = summary.models.length > 1;
  return single('span-retrieval', {
    title: 'Span retrieval (chunking-independent)',
    note: SPAN_RETRIEVAL_NOTE,
    columns: [...(several ? [text('model', 'model')] : []), text('condition', 'condition'), ...metrics.map((m) => interval(SPAN_METRIC_HEADINGS[m], m, SPAN_METRIC_DIGITS[m] ?? 3))],
    rows: cells.map((cell) => [...(several ? [cell.model] : []), cell.condition, ...metrics.map((m) => meanInterval(cell.spanRetrieval![m]))]),
  });
}

/**
 * With two chunkings or more: a row per model × strategy (× retriever where two read one corpus) ×
 * corpus, a column per depth (each k, then each budget in tokens): mean score and mean context tokens.
 */
function chunkingDepthTable(summary: RunSummary): SectionTable[] {
  const cells = summary.cells.filter((c) => c.corpus && (c.k !== null || c.contextTokens !== undefined));
  if (new Set(cells.map((c) => c.corpus)).size < 2) return [];
  type Cell = (typeof cells)[number];
  const depth = (c: Cell) => (c.k !== null ? `k=${c.k}` : `${c.contextTokens}tok`);
  const order = (c: Cell) => (c.k !== null ? c.k : 1e9 + c.contextTokens!);
  const columns = [...new Map([...cells].sort((a, b) => order(a) - order(b)).map((c) => [depth(c), c])).keys()];
  const byRetriever = cells.some((c) => cells.some((d) => d.corpus === c.corpus && sweptRetriever(d.retriever) !== sweptRetriever(c.retriever)));
  const rowKey = (c: Cell) => `${summary.models.length > 1 ? `${c.model} ` : ''}${c.strategy} · ${byRetriever ? `${sweptRetriever(c.retriever)} · ` : ''}${c.corpus}`;
  const rows = [...new Set(cells.map(rowKey))].map((key) => [
    key,
    ...columns.map((column): MeanTokens | null => {
      const found = cells.filter((x) => rowKey(x) === key && depth(x) === column);
      // One cell per row and depth by construction of the key; a second would be a different factor the key misses.
      return found.length === 1 ? { mean: found[0]!.score.mean, tokens: found[0]!.context ? found[0]!.context.tokens : null } : null;
    }),
  ]);
  return single('chunking-depth', {
    title: 'chunking × depth',
    note: 'mean score (mean context tokens) per corpus the retriever reads, at each depth',
    columns: [text(byRetriever ? 'strategy · retriever · chunking' : 'strategy · chunking', 'row'), ...columns.map((c): SectionColumn => ({ kind: 'meanTokens', head: c, csv: c.replace('=', '') }))],
    rows,
  });
}

/** The judge checked against people: means and Δ judge-only beside corrected, and the agreement of each rater. */
export function judgeCheckSections(check: JudgeCheckSummary | undefined): SectionTable[] {
  if (!check) return [];
  const basis = labelBasisLines(check).join(' ');
  const out: SectionTable[] = [
    {
      name: 'judge-check-means',
      section: 'judge-check',
      title: 'Means, judge-only beside corrected with the labels (PPI++), and the judge’s bias',
      note: `Bias: judge − human on the labelled answers. ${basis}`,
      columns: [text('model', 'model'), text('condition', 'condition'), count('judged', 'n'), count('labelled', 'labelled'), interval('judge-only', 'judge_only', 1), interval('labels only', 'labels_only', 1), interval('PPI++', 'ppi', 1), { kind: 'number', head: 'λ', csv: 'lambda', digits: 2 }, interval('bias', 'bias', 1, true)],
      rows: check.means.map((c) => [c.model, c.condition, c.n, c.labelled, c.judgeOnly, c.labelsOnly, c.ppiPlusPlus, c.lambda, c.bias]),
    },
  ];
  if (check.differences.length) {
    out.push({
      name: 'judge-check-differences',
      section: 'judge-check',
      title: 'Paired Δ against the baseline, judge-only beside corrected with the labels',
      note: `Bias Δ: the judge’s part of Δ; judge share: its share of the judge-only Δ. ${basis}`,
      columns: [text('model', 'model'), text('condition', 'condition'), text('vs', 'baseline'), count('pairs', 'n'), count('labelled', 'labelled'), interval('Δ judge-only', 'diff_judge_only', 1, true), interval('Δ PPI++', 'diff_ppi', 1, true), interval('bias Δ', 'bias_diff', 1, true), { kind: 'number', head: 'judge share %', csv: 'judge_share_percent', digits: 0 }, interval('Δ labels only', 'diff_labels_only', 1, true)],
      rows: check.differences.map((d) => [d.model, d.condition, d.baseline, d.n, d.labelled, d.judgeOnly, d.ppiPlusPlus, d.biasDifference, d.judgeShare === null ? null : d.judgeShare * 100, d.labelsOnly]),
    });
  }
  const raters = [...check.agreement.map((r) => ({ ...r, between: false })), ...check.annotatorAgreement.map((r) => ({ ...r, between: true }))];
  out.push({
    name: 'judge-check-agreement',
    section: 'judge-check',
    title: 'Agreement of the judge (and between annotators) with each annotator',
    note: 'Pearson r at rubric level and over answers’ scores, Cohen’s κ and Krippendorff’s α over the same units; 95% intervals resample whole answers. Synthetic labels are a rater of their own, marked.',
    columns: [text('rater', 'rater'), text('annotator', 'annotator'), count('answers', 'answers'), count('units', 'units'), interval('r rubric', 'r_rubric'), interval('r answer (RS)', 'r_answer'), interval('κ', 'kappa'), interval('α', 'alpha')],
    rows: raters.map((r) => [r.judge, `${r.annotator}${r.synthetic ? ' (synthetic)' : ''}`, r.answers, r.units, r.rubricPearson, r.answerPearson, r.kappa, r.alpha]),
  });
  return out;
}

/** Image input against OCR input: paired Δ overall and by evidence modality, with helped / hurt. */
function modalityTable(summary: RunSummary): SectionTable[] {
  const all = summary.byModality ?? [];
  if (!all.length) return [];
  const modal = [...new Set(all.flatMap((c) => Object.keys(c.byGroup.evidence_modal ?? {})))].sort();
  const several = summary.models.length > 1;
  return single('modality', {
    title: 'Image input against OCR input, by evidence modality',
    note: 'Paired Δ (condition − OCR input) on the questions both scored; helped / hurt / unchanged: questions by the change of their score.',
    columns: [
      text('comparison', 'comparison'),
      interval('Δ all [95% CI]', 'diff', 2, true),
      ...modal.map((v) => interval(`Δ ${v}`, `diff_${v}`, 2, true)),
      count('helped', 'helped'),
      count('hurt', 'hurt'),
      count('unchanged', 'unchanged'),
      count('n', 'n'),
    ],
    rows: all.map((c) => [
      `${several ? `${c.model} ` : ''}${c.condition} − ${c.against}`,
      diffInterval(c.overall),
      ...modal.map((v) => diffInterval(c.byGroup.evidence_modal?.[v])),
      c.decomposition.helped.n,
      c.decomposition.hurt.n,
      c.decomposition.unchanged.n,
      c.overall.n,
    ]),
  });
}

/** Every table of a run, in the order the exports set them. */
export function reportSections(summary: RunSummary): SectionTable[] {
  return [
    ...conditionTables(summary),
    ...depthCurveTable(summary),
    ...depthFamilyTable(summary),
    ...chunkingDepthTable(summary),
    ...spanRetrievalTable(summary),
    ...modalityTable(summary),
    ...judgeCheckSections(summary.judgeCheck),
  ];
}
