import type { RunSummary } from '../../src/runFiles/summary.js';

/**
 * Reads the lines a Vega-Lite figure draws and checks them against the run's summary, independently
 * of how `src/figures/` builds them: any spec with inline data, layers, concatenations or facets,
 * a line being the rows of a `line` mark that share every field that splits marks (colour, detail,
 * stroke dash, shape) and the facet they sit in.
 */
export interface DrawnLine {
  /** The figure and plot (facet) it is drawn in, and what splits it from the others. */
  plot: string;
  series: string;
  xTitle: string;
  yTitle: string;
  points: { x: number; y: number }[];
}

type Spec = Record<string, any>;
type Row = Record<string, unknown>;

const SPLITTING_CHANNELS = ['color', 'detail', 'strokeDash', 'shape', 'facet', 'row', 'column'];

/** The few Vega expression functions a filter may call, as JavaScript. */
const VEGA_FUNCTIONS = { isValid: (v: unknown) => v !== null && v !== undefined && !Number.isNaN(v), isNumber: (v: unknown) => typeof v === 'number', isString: (v: unknown) => typeof v === 'string' };

/** A filter transform's rows; a filter that is not an expression (a selection), or one this reader cannot evaluate, keeps every row. */
function applyTransforms(rows: Row[], transforms: unknown): Row[] {
  let out = rows;
  for (const t of (transforms as Spec[] | undefined) ?? []) {
    if (typeof t?.filter !== 'string') continue;
    const test = new Function('datum', ...Object.keys(VEGA_FUNCTIONS), `return (${t.filter});`) as (d: Row, ...fns: unknown[]) => boolean;
    out = out.filter((row) => {
      try {
        return test(row, ...Object.values(VEGA_FUNCTIONS));
      } catch {
        return true;
      }
    });
  }
  return out;
}

const fieldOf = (channel: unknown): string | undefined => (channel && typeof channel === 'object' && typeof (channel as Spec).field === 'string' ? (channel as Spec).field : undefined);

/** Every line of a spec (the figure's name first in each plot's id). */
export function drawnLines(name: string, spec: Spec): DrawnLine[] {
  const lines: DrawnLine[] = [];
  const walk = (node: Spec, data: Row[], split: string[], path: string, transforms: unknown[]) => {
    if (!node || typeof node !== 'object') return;
    const rows = Array.isArray(node.data?.values) ? (node.data.values as Row[]) : data;
    const own = [...transforms, ...((node.transform as unknown[]) ?? [])];
    if (node.facet) {
      const facetFields = [fieldOf(node.facet), fieldOf(node.facet.row), fieldOf(node.facet.column)].filter((f): f is string => Boolean(f));
      walk(node.spec, applyTransforms(rows, own), [...split, ...facetFields], `${path}/facet`, []);
      return;
    }
    for (const key of ['layer', 'hconcat', 'vconcat', 'concat'] as const) {
      if (Array.isArray(node[key])) node[key].forEach((child: Spec, i: number) => walk(child, applyTransforms(rows, own), split, `${path}/${key}${i}`, []));
    }
    const mark = typeof node.mark === 'string' ? node.mark : node.mark?.type;
    if (mark !== 'line' || !node.encoding) return;
    const enc = node.encoding as Spec;
    const xField = fieldOf(enc.x);
    const yField = fieldOf(enc.y);
    if (!xField || !yField) return;
    const splitting = [...split, ...SPLITTING_CHANNELS.map((c) => fieldOf(enc[c])).filter((f): f is string => Boolean(f))];
    const byKey = new Map<string, DrawnLine>();
    for (const row of applyTransforms(rows, own)) {
      const x = Number(row[xField] ?? NaN);
      const y = Number(row[yField] ?? NaN);
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      const series = splitting.map((f) => String(row[f])).join(' | ');
      // A facet is a plot of its own: its lines share no axis with another facet's.
      const plot = `${name}${path}${split.length ? `[${split.map((f) => String(row[f])).join(' | ')}]` : ''}`;
      const key = `${plot}\u0000${series}`;
      const line = byKey.get(key) ?? { plot, series, xTitle: String(enc.x.title ?? xField), yTitle: String(enc.y.title ?? yField), points: [] };
      line.points.push({ x, y });
      byKey.set(key, line);
    }
    lines.push(...byKey.values());
  };
  walk(spec, [], [], '', []);
  return lines;
}

/** What a point of a figure can stand for: a condition's mean (or a depth curve's P(best)) at an x the condition has. */
interface Plotted {
  y: number;
  xs: Array<{ x: number; kind: XKind }>;
  factors: Record<Factor, string>;
}

type XKind = 'k' | 'budget' | 'context tokens' | 'cost';
export const FACTORS = ['model', 'retriever', 'chunking', 'method', 'depth kind'] as const;
type Factor = (typeof FACTORS)[number];

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

function factorsOf(cell: RunSummary['cells'][number]): Record<Factor, string> {
  return {
    model: cell.model,
    // A chunking sweep labels its retrievers `<label>·maxSize=…`: the retriever is the label, the chunking its corpus.
    retriever: (cell.retriever ?? 'none').split('·')[0]!,
    chunking: cell.corpus ?? 'none',
    method: cell.strategy,
    'depth kind': cell.contextTokens !== undefined ? 'budget' : cell.k !== null ? 'k' : 'none',
  };
}

/** Every value a figure of this run may plot, with the factors it comes from. */
function plottedValues(summary: RunSummary): { scores: Plotted[]; pBest: Plotted[] } {
  const scores = summary.cells
    .filter((c) => c.score.mean !== null)
    .map((cell) => {
      const xs: Plotted['xs'] = [];
      if (cell.k !== null) xs.push({ x: cell.k, kind: 'k' });
      if (cell.contextTokens !== undefined) xs.push({ x: cell.contextTokens, kind: 'budget' });
      if (cell.context) xs.push({ x: cell.context.tokens, kind: 'context tokens' });
      if (cell.cost) xs.push({ x: cell.cost.price ?? NaN, kind: 'cost' }, { x: Math.max(1, cell.cost.promptTokens + cell.cost.completionTokens), kind: 'cost' });
      return { y: cell.score.mean!, xs, factors: factorsOf(cell) };
    });
  const pBest: Plotted[] = [];
  for (const curve of summary.depthCurves ?? []) {
    curve.depths.forEach((depth, i) => {
      const cell = summary.cells.find((c) => c.model === curve.model && c.condition === curve.conditions[i]);
      if (!cell) return;
      pBest.push({ y: curve.probabilityBest[i]!, xs: [{ x: depth, kind: cell.contextTokens !== undefined ? 'budget' : 'k' }], factors: factorsOf(cell) });
    });
  }
  return { scores, pBest };
}

/** Whether an x axis title says what the axis holds: k for depths k, tokens (or a budget) for budgets and measured context, anything for a cost. */
function titleFits(kind: XKind, title: string): boolean {
  if (kind === 'k') return /\bk\b/.test(title) && !/token|budget/i.test(title);
  if (kind === 'budget') return /budget|token/i.test(title);
  if (kind === 'context tokens') return /token/i.test(title);
  return true;
}

/**
 * What is wrong with a run's figure: a line whose points differ in a factor that is not on an axis
 * (a retriever, a chunking, a method, a model, a kind of depth), a plot whose x axis carries both
 * k and token budgets, or an axis titled for another kind of depth than it shows.
 */
export function figureProblems(name: string, spec: Spec, summary: RunSummary): string[] {
  const problems: string[] = [];
  const { scores, pBest } = plottedValues(summary);
  const kindsByPlot = new Map<string, Set<XKind>>();
  for (const line of drawnLines(name, spec)) {
    const pool = /P\(best/i.test(line.yTitle) ? pBest : scores;
    const matches = line.points.map((p) => pool.flatMap((v) => (near(v.y, p.y) ? v.xs.filter((x) => near(x.x, p.x)).map((x) => ({ kind: x.kind, factors: v.factors })) : [])));
    // A point no condition explains is not this check's to judge (another kind of figure).
    if (matches.some((m) => m.length === 0)) continue;
    for (const factor of FACTORS) {
      const common = matches.map((m) => new Set(m.map((c) => c.factors[factor]))).reduce((a, b) => new Set([...a].filter((v) => b.has(v))));
      if (common.size === 0) {
        const values = [...new Set(matches.flatMap((m) => m.map((c) => c.factors[factor])))];
        problems.push(`${line.plot}: line "${line.series}" joins points of different ${factor} (${values.join(', ')}), and ${factor} is on neither axis`);
      }
    }
    const kinds = matches.map((m) => new Set(m.map((c) => c.kind))).reduce((a, b) => new Set([...a].filter((v) => b.has(v))));
    const plotKinds = kindsByPlot.get(line.plot) ?? new Set<XKind>();
    for (const match of matches) for (const { kind } of match) plotKinds.add(kind);
    kindsByPlot.set(line.plot, plotKinds);
    if (kinds.size > 0 && ![...kinds].some((kind) => titleFits(kind, line.xTitle))) {
      problems.push(`${line.plot}: x axis titled "${line.xTitle}" but line "${line.series}" is drawn against ${[...kinds].join(' / ')}`);
    }
  }
  for (const [plot, kinds] of kindsByPlot) {
    if (kinds.has('k') && kinds.has('budget') && !kinds.has('context tokens')) problems.push(`${plot}: k and token budgets share one x axis`);
  }
  return problems;
}
