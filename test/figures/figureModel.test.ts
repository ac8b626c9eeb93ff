import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { compile } from 'vega-lite';
import { CellSummarySchema, type CellSummary, type DepthCurve, type RunSummary } from '../../src/runFiles/summary.js';
import { runFigureSpecs } from '../../src/figures/runFigures.js';
import { figureViolations } from '../../src/figures/figureViolations.js';
import { lineFigureSpec, panelledFigureSpec, type VegaLiteSpec } from '../../src/figures/lineFigure.js';
import { columnFigureSpec, COLUMN_WIDTH_PX } from '../../src/figures/columnFigure.js';
import { figureSvg } from '../../src/figures/render.js';
import { chartSeries } from '../../src/results/chartSeries.js';
import { multiIndexDemoConfigIn } from '../helpers/demoConfig.js';
import { runCli } from '../helpers/runCli.js';

type Row = { series: string; kind: string; x: number; y: number; panel: string };
/** Each plot of a figure as Vega draws it: its x axis title and its rows (a `concat` view's own data, or the figure's). */
function plots(spec: VegaLiteSpec): { xTitle: string; rows: Row[] }[] {
  const views = (spec.concat as VegaLiteSpec[] | undefined) ?? [spec];
  return views.map((view) => {
    const layers = (view.layer ?? (view.spec as VegaLiteSpec | undefined)?.layer) as VegaLiteSpec[];
    const line = layers.find((l) => (l.mark as { type: string }).type === 'line')!;
    const rows = ((view.data ?? spec.data) as { values: Row[] }).values.filter((r) => r.kind === 'series');
    return { xTitle: String((line.encoding as { x: { title: string } }).x.title), rows };
  });
}
/** The lines of a plot: rows grouped by the field Vega draws a line per (the series). */
function lines(rows: Row[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const r of rows) out.set(r.series, [...(out.get(r.series) ?? []), r]);
  return out;
}

// A hand-built sweep: 2 retrievers × 2 chunkings × (k 1, 3, 5 + budgets 150, 400), and closed-book.
// Every cell has a score of its own, so a drawn point is traced back to its cell by its y.
const RETRIEVERS = ['dense', 'bm25'];
const CHUNKINGS = ['chunks-40', 'chunks-120'];
const DEPTHS: { k: number | null; budget?: number }[] = [{ k: 1 }, { k: 3 }, { k: 5 }, { k: null, budget: 150 }, { k: null, budget: 400 }];
function cell(fields: { condition: string; retriever: string | null; corpus?: string; k: number | null; contextTokens?: number; score: number; tokens?: number; cost: number }): CellSummary {
  return CellSummarySchema.parse({
    model: 'm',
    condition: fields.condition,
    strategy: fields.retriever ? 'rag' : 'closed-book',
    methodSpec: { name: fields.retriever ? 'rag' : 'closed-book', params: {} },
    retriever: fields.retriever,
    k: fields.k,
    ...(fields.contextTokens !== undefined ? { contextTokens: fields.contextTokens } : {}),
    ...(fields.tokens !== undefined ? { context: { n: 20, chunks: 3, tokens: fields.tokens }, corpus: fields.corpus } : {}),
    items: 20,
    scored: 20,
    failed: { generation: 0, judge: 0 },
    score: { n: 20, mean: fields.score, ciLow: fields.score - 3, ciHigh: fields.score + 3 },
    scoreRaw: fields.score / 100,
    byGroup: {},
    retrieval: null,
    extra: {},
    truncatedItems: 0,
    cost: { n: 20, retrievalCalls: 1, generationCalls: 1, promptTokens: fields.cost, completionTokens: 10, durationMs: 5, price: null, estimatedTokens: true },
  });
}
function handBuiltSweep(): { summary: RunSummary; truth: Map<number, { retriever: string; corpus: string; kind: string }> } {
  const cells: CellSummary[] = [cell({ condition: 'closed-book', retriever: null, k: null, score: 12.5, cost: 100 })];
  const curves: DepthCurve[] = [];
  const truth = new Map<number, { retriever: string; corpus: string; kind: string }>();
  let score = 20;
  for (const retriever of RETRIEVERS) {
    for (const corpus of CHUNKINGS) {
      for (const kind of ['k', 'contextTokens'] as const) {
        const depths = DEPTHS.filter((d) => (kind === 'k') === (d.k !== null));
        const conditions = depths.map((d) => `${retriever}-${corpus}/rag@${d.k ?? `${d.budget}tok`}`);
        for (const [i, d] of depths.entries()) {
          score += 1.25;
          truth.set(score, { retriever, corpus, kind });
          const size = corpus === 'chunks-40' ? 40 : 120;
          cells.push(cell({ condition: conditions[i]!, retriever, corpus, k: d.k, ...(d.budget ? { contextTokens: d.budget } : {}), score, tokens: d.k ? d.k * size + score / 10 : d.budget! - score / 10, cost: 200 + score * 10 }));
        }
        // P(best) of a curve: probabilities that sum to 1, each curve's its own (traced back by y too).
        const base = curves.length / 100;
        const probabilityBest = depths.map((_, i) => (i === 0 ? 1 - base * (depths.length - 1) - 0.001 * (depths.length - 1) : base + 0.001 * i));
        for (const p of probabilityBest) truth.set(p, { retriever, corpus, kind });
        const interval = { estimate: 0, ciLow: -1, ciHigh: 1 };
        curves.push({ model: 'm', strategy: 'rag', retriever, conditions, depths: depths.map((d) => d.k ?? d.budget!), means: depths.map(() => 0), n: 20, slope: { ...interval, designEffect: null }, bestK: depths[0]!.k ?? depths[0]!.budget!, probabilityBest, deepestMinusBest: interval, deepestBelowBest: false, unit: kind, corpus });
      }
    }
  }
  const summary = { experiment: 'hand-built', baseline: 'closed-book', bootstrap: { resamples: 100, seed: 1, confidence: 0.95 }, models: ['m'], conditions: cells.map((c) => c.condition), metric: { id: 'accuracy', name: 'accuracy', description: '', scale: { min: 0, max: 100 } }, totals: { items: 0, scored: 0, generationFailed: 0, judgeFailed: 0, empty: 0 }, cells, paired: [], depthCurves: curves } as unknown as RunSummary;
  return { summary, truth };
}

describe('the figure model on a hand-built sweep (2 retrievers × 2 chunkings × k [1, 3, 5] + budgets [150, 400])', () => {
  const { summary, truth } = handBuiltSweep();
  const figures = runFigureSpecs(summary);
  const figure = (name: string) => figures.find((f) => f.name === name)!.spec;

  it.each(['score-vs-k', 'score-vs-context-tokens', 'p-best', 'score-vs-cost'])('%s: every line is one retriever, one chunking and one depth kind; k and budgets never share a plot; each x axis names its kind', (name) => {
    const spec = figure(name);
    expect(() => compile(spec as never)).not.toThrow();
    for (const plot of plots(spec)) {
      const kinds = new Set<string>();
      for (const [series, rows] of lines(plot.rows)) {
        const cells = rows.map((r) => truth.get(r.y)).filter((t): t is NonNullable<typeof t> => t !== undefined);
        if (series === 'closed-book') continue;
        expect(cells, `${name} ${series}`).toHaveLength(rows.length);
        for (const key of ['retriever', 'corpus', 'kind'] as const) expect(new Set(cells.map((c) => c[key])).size, `${name}: ${series} mixes ${key}`).toBe(1);
        kinds.add(cells[0]!.kind);
      }
      expect([...kinds], `${name}: ${plot.xTitle}`).toHaveLength(1);
      if (kinds.has('k')) {
        expect(plot.xTitle).toMatch(/depth k/);
        expect(plot.xTitle).not.toMatch(/budget/);
      } else {
        expect(plot.xTitle).toMatch(/context budget/);
        expect(plot.xTitle).not.toMatch(/depth k/);
      }
    }
    expect(figureViolations(spec)).toEqual([]);
  });

  it('draws the tokens figure and P(best) as a k panel and a budget panel of one line per retriever × chunking', () => {
    for (const name of ['score-vs-context-tokens', 'p-best', 'score-vs-k']) {
      const drawn = plots(figure(name));
      expect(drawn).toHaveLength(2);
      for (const plot of drawn) expect([...lines(plot.rows).keys()].sort()).toEqual(['bm25 · chunks-120', 'bm25 · chunks-40', 'dense · chunks-120', 'dense · chunks-40']);
      expect(drawn.map((p) => p.rows.length)).toEqual(name === 'score-vs-context-tokens' || name === 'score-vs-k' ? [12, 8] : [12, 8]);
    }
    // closed-book stays as a dashed reference line in each panel of the score figures, named at its end
    const tokens = figure('score-vs-context-tokens');
    for (const view of tokens.concat as VegaLiteSpec[]) {
      expect((view.data as { values: Row[] }).values.filter((r) => r.kind === 'reference').map((r) => r.series)).toEqual(['closed-book']);
      expect(JSON.stringify(view.layer)).toContain('"type":"text"');
    }
  });

  it('prints every text of every figure at ≥ 7 pt when the LaTeX export sets it 3.3 in wide', () => {
    for (const { name, spec } of figures) {
      const svg = figureSvg(columnFigureSpec(spec), { width: COLUMN_WIDTH_PX });
      const width = Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)![1]);
      const fonts = [...svg.matchAll(/font-size="([\d.]+)px"/g)].map((m) => Number(m[1]));
      expect(fonts.length, name).toBeGreaterThan(5);
      // px of the SVG → pt when its width is scaled to 3.3 in (72 pt per in)
      for (const px of fonts) expect(px * ((3.3 * 72) / width), `${name}: ${px}px text in a ${width}px figure`).toBeGreaterThanOrEqual(7);
    }
  });
});

describe('figureViolations', () => {
  const factors = (retriever: string, depthKind = 'k') => ({ model: 'm', retriever, chunking: 'c', strategy: 'rag', method: 'rag', depthKind });

  it("finds the zigzag: one line per chunking that joins two retrievers' points", () => {
    const spec = lineFigureSpec({ xLabel: 'context tokens (log), depth k', yLabel: 's', xScale: 'log', series: [{ label: 'c', points: [{ x: 18, y: 6.4, factors: factors('dense') }, { x: 29, y: 59.5, factors: factors('bm25') }, { x: 65, y: 21.8, factors: factors('dense') }] }] });
    expect(figureViolations(spec)).toEqual([{ kind: 'series-mixes-factor', plot: 'figure', series: 'c', factor: 'retriever', values: ['dense', 'bm25'] }]);
  });

  it('finds k and budgets on one axis, and an axis titled for the other kind', () => {
    const mixed = lineFigureSpec({ xLabel: 'retrieval depth k', yLabel: 'P', series: [{ label: 'a', points: [{ x: 1, y: 0.2, factors: factors('a') }] }, { label: 'b', points: [{ x: 300, y: 0.8, factors: factors('a', 'contextTokens') }] }] });
    expect(figureViolations(mixed)).toEqual([{ kind: 'axis-mixes-depth-kinds', plot: 'figure', depthKinds: ['k', 'contextTokens'] }]);
    const panelled = panelledFigureSpec({
      yLabel: 'P',
      panels: [
        { title: 'one', xLabel: 'retrieval depth k', series: [{ label: 'a', points: [{ x: 1, y: 0.2, factors: factors('a') }] }] },
        { title: 'two', xLabel: 'retrieval depth k', series: [{ label: 'a', points: [{ x: 150, y: 0.2, factors: factors('a', 'contextTokens') }] }] },
      ],
    });
    expect(figureViolations(panelled)).toEqual([{ kind: 'axis-title-mismatch', plot: 'two', depthKind: 'contextTokens', title: 'retrieval depth k' }]);
  });

  it('finds a line whose label is shared by two conditions (Vega draws one line per label)', () => {
    const spec = lineFigureSpec({ xLabel: 'depth k', yLabel: 's', series: [{ label: 'rag', points: [{ x: 1, y: 1, factors: factors('dense') }] }, { label: 'rag', points: [{ x: 3, y: 2, factors: factors('bm25') }] }] });
    expect(figureViolations(spec).map((v) => v.kind)).toEqual(['series-mixes-factor']);
  });
});

describe('chartSeries (notebooks) under the figure model', () => {
  it('adds a key that varies but was not asked for to the series, so no line joins its values', () => {
    const mean = (keys: Record<string, string | number | null>, m: number) => ({ keys, n: 3, failed: 0, mean: m, ciLow: m - 1, ciHigh: m + 1 });
    const { series } = chartSeries([mean({ k: 1, retriever: 'dense', strategy: 'rag' }, 10), mean({ k: 1, retriever: 'bm25', strategy: 'rag' }, 20), mean({ k: 3, retriever: 'dense', strategy: 'rag' }, 30)], { x: 'k', series: ['strategy'] });
    expect(series.map((s) => [s.label, s.points.map((p) => p.y)])).toEqual([['rag / dense', [10, 30]], ['rag / bm25', [20]]]);
    expect(figureViolations(lineFigureSpec({ xLabel: 'retrieval depth k', yLabel: 's', series }))).toEqual([]);
  });
});

describe('demo-chunking (3 chunkings × dense + BM25 × k [1, 3, 10]), run offline', () => {
  let dir: string;
  let summary: RunSummary;
  const runDir = () => join(dir, 'runs', 'chunking');
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-figure-model-'));
    const { config } = multiIndexDemoConfigIn(dir, 'demo-chunking.yaml');
    config.scoring.bootstrapResamples = 200;
    writeFileSync(join(dir, 'chunking.yaml'), stringify(config));
    const run = await runCli(['run', join(dir, 'chunking.yaml'), '--run-id', 'chunking', '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    summary = JSON.parse(readFileSync(join(runDir(), 'summary.json'), 'utf8'));
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('saves figures without a violation, the tokens figure one line per retriever × chunking', () => {
    const saved = readdirSync(join(runDir(), 'figures')).filter((f) => f.endsWith('.vl.json'));
    expect(saved).toEqual(expect.arrayContaining(['score-vs-k.vl.json', 'score-vs-context-tokens.vl.json', 'p-best.vl.json']));
    for (const file of saved) expect(figureViolations(JSON.parse(readFileSync(join(runDir(), 'figures', file), 'utf8'))), file).toEqual([]);
    const tokens = JSON.parse(readFileSync(join(runDir(), 'figures', 'score-vs-context-tokens.vl.json'), 'utf8'));
    const [plot] = plots(tokens);
    const drawn = lines(plot!.rows);
    expect(drawn.size).toBe(6);
    // Each point traced back to its cell by its mean context tokens: one retriever and one chunking per line.
    const retrieving = summary.cells.filter((c) => c.context);
    for (const [series, rows] of drawn) {
      const cells = rows.map((r) => retrieving.find((c) => Math.abs(c.context!.tokens - r.x) < 1e-9)!);
      expect(new Set(cells.map((c) => c.retriever)).size, series).toBe(1);
      expect(new Set(cells.map((c) => c.corpus)).size, series).toBe(1);
      expect(rows).toHaveLength(3);
    }
    expect(plot!.xTitle).toMatch(/depth k/);
    const pBest = plots(JSON.parse(readFileSync(join(runDir(), 'figures', 'p-best.vl.json'), 'utf8')));
    expect(pBest.map((p) => p.xTitle)).toEqual(['retrieval depth k (passages)']);
  });
});
