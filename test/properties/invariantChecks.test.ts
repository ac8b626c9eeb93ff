import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/runFiles/summary.js';
import { drawnLines, figureProblems } from '../helpers/figureLines.js';
import { deltaProblems } from '../helpers/studyInvariants.js';
import { parseCsv, surfaceProblems, type Surfaces } from '../helpers/surfaceNumbers.js';
import type { RunDetail } from '../../src/viewer/api.js';

// The property test's checks on hand-made figures and summaries: each finds what it is for, and passes what is right.

const cell = (retriever: string, condition: string, depth: { k?: number; budget?: number }, mean: number, tokens: number) => ({
  model: 'm',
  condition,
  strategy: 'rag',
  retriever,
  k: depth.k ?? null,
  ...(depth.budget !== undefined ? { contextTokens: depth.budget } : {}),
  context: { n: 5, chunks: 2, tokens },
  corpus: 'wiki·maxSize=40',
  score: { n: 5, mean, ciLow: mean - 5, ciHigh: mean + 5 },
});

const summary = {
  baseline: 'closed-book',
  conditions: ['closed-book', 'bm25/rag@1', 'bm25/rag@3', 'dense/rag@1', 'dense/rag@3', 'bm25/rag@100tok'],
  cells: [
    cell('bm25', 'bm25/rag@1', { k: 1 }, 6.4, 18),
    cell('dense', 'dense/rag@1', { k: 1 }, 59.5, 29),
    cell('bm25', 'bm25/rag@3', { k: 3 }, 21.8, 65),
    cell('dense', 'dense/rag@3', { k: 3 }, 41.3, 77),
    cell('bm25', 'bm25/rag@100tok', { budget: 100 }, 30, 90),
  ],
  paired: [],
  depthCurves: [
    { model: 'm', conditions: ['bm25/rag@1', 'bm25/rag@3'], depths: [1, 3], probabilityBest: [0.2, 0.8] },
    { model: 'm', conditions: ['bm25/rag@100tok'], depths: [100], probabilityBest: [1] },
  ],
} as unknown as RunSummary;

/** A line figure as Vega-Lite: rows with a series field, one `line` layer coloured by it. */
const lineSpec = (xTitle: string, rows: Array<{ series: string; x: number; y: number }>, yTitle = 'mean RS') => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  data: { values: rows },
  layer: [{ mark: 'line', encoding: { x: { field: 'x', type: 'quantitative', title: xTitle }, y: { field: 'y', type: 'quantitative', title: yTitle }, color: { field: 'series' } } }],
});

describe('the figure check', () => {
  it('finds the zigzag of issue 53: one line through the points of two retrievers against context tokens', () => {
    const zigzag = lineSpec('context tokens per answer', [
      { series: 'wiki·maxSize=40', x: 18, y: 6.4 },
      { series: 'wiki·maxSize=40', x: 29, y: 59.5 },
      { series: 'wiki·maxSize=40', x: 65, y: 21.8 },
      { series: 'wiki·maxSize=40', x: 77, y: 41.3 },
    ]);
    expect(figureProblems('tokens', zigzag, summary)).toEqual(['tokens/layer0: line "wiki·maxSize=40" joins points of different retriever (bm25, dense), and retriever is on neither axis']);
  });

  it('passes one line per retriever', () => {
    const apart = lineSpec('context tokens per answer', [
      { series: 'bm25', x: 18, y: 6.4 },
      { series: 'dense', x: 29, y: 59.5 },
      { series: 'bm25', x: 65, y: 21.8 },
      { series: 'dense', x: 77, y: 41.3 },
    ]);
    expect(drawnLines('tokens', apart).map((l) => l.points.length)).toEqual([2, 2]);
    expect(figureProblems('tokens', apart, summary)).toEqual([]);
  });

  it('finds k and token budgets on one axis titled "retrieval depth k" (P(best), issue 53)', () => {
    const pBest = lineSpec('retrieval depth k', [
      { series: 'bm25', x: 1, y: 0.2 },
      { series: 'bm25', x: 3, y: 0.8 },
      { series: 'bm25', x: 100, y: 1 },
    ], 'P(best k), bootstrap');
    expect(figureProblems('p-best', pBest, summary)).toEqual([
      'p-best/layer0: line "bm25" joins points of different depth kind (k, budget), and depth kind is on neither axis',
      'p-best/layer0: k and token budgets share one x axis',
    ]);
  });

  it('reads facets as plots of their own, and a facet per depth kind with its own title passes', () => {
    const faceted = {
      hconcat: [
        lineSpec('retrieval depth k', [{ series: 'bm25', x: 1, y: 0.2 }, { series: 'bm25', x: 3, y: 0.8 }], 'P(best)'),
        lineSpec('context budget (tokens)', [{ series: 'bm25', x: 100, y: 1 }], 'P(best)'),
      ],
    };
    expect(drawnLines('p-best', faceted).map((l) => l.plot)).toEqual(['p-best/hconcat0/layer0', 'p-best/hconcat1/layer0']);
    expect(figureProblems('p-best', faceted, summary)).toEqual([]);
    const mistitled = { hconcat: [faceted.hconcat[0], lineSpec('retrieval depth k', [{ series: 'bm25', x: 100, y: 1 }], 'P(best)')] };
    expect(figureProblems('p-best', mistitled, summary)).toEqual(['p-best/hconcat1/layer0: x axis titled "retrieval depth k" but line "bm25" is drawn against budget']);
  });
});

describe('the Δ check', () => {
  it('finds a baseline that is not a condition, a header that names it, and conditions without Δ', () => {
    const relabelled = { ...summary, conditions: ['闭卷', 'bm25/rag@1'], cells: [summary.cells[0]], paired: [] } as unknown as RunSummary;
    expect(deltaProblems(relabelled, 'condition  mean  Δ vs closed-book [95% CI]')).toEqual([
      'summary.json: baseline "closed-book" is not a condition of the run (闭卷, bm25/rag@1)',
      'terminal: "Δ vs closed-book" names no condition of the run',
      'summary.json: m · bm25/rag@1 has no Δ against closed-book',
    ]);
  });
});

describe('the CSV reader', () => {
  it('reads quoted fields with commas, quotes and newlines', () => {
    expect(parseCsv('a,b\n"x, y","say ""hi""\nthere"\n')).toEqual([['a', 'b'], ['x, y', 'say "hi"\nthere']]);
  });
});

describe('the surface check', () => {
  // One condition against closed-book, as the terminal, the report, the CSV, LaTeX and the viewer print it (by hand).
  const run = {
    baseline: 'closed-book',
    models: ['m'],
    conditions: ['closed-book', 'rag@3'],
    cells: [
      { model: 'm', condition: 'closed-book', score: { n: 5, mean: 0, ciLow: 0, ciHigh: 0 } },
      { model: 'm', condition: 'rag@3', score: { n: 5, mean: 26.2, ciLow: 11.76, ciHigh: 42.2 } },
    ],
    paired: [{ model: 'm', condition: 'rag@3', baseline: 'closed-book', n: 5, meanDiff: 26.2, ciLow: 9.18, ciHigh: 44 }],
  } as unknown as RunSummary;
  const surfaces = (delta: string): Surfaces => ({
    terminal: ['model: m', 'condition    mean  95% CI  Δ vs closed-book [95% CI]', 'closed-book  0.00  [0.00, 0.00]  –', `rag@3        26.20  [11.76, 42.20]  ${delta}`].join('\n'),
    reportHtml: `<h3>m</h3><div><table class="conditions"><tr><th>condition</th></tr><tr><td>closed-book</td><td>0.00 [0.00, 0.00]</td><td>–</td></tr><tr><td>rag@3</td><td>26.20 <span>[11.76, 42.20]</span></td><td>${delta}</td></tr></table></div>`,
    csv: 'model,condition,group,mean,ci_low,ci_high,diff_vs_baseline,diff_ci_low,diff_ci_high\nm,closed-book,all,0,0,0,,,\nm,rag@3,all,26.2,11.76,42.2,26.2,9.18,44\n',
    latex: [{ name: 'conditions', tex: `closed-book & 0.00 [0.00, 0.00] & -- & -- & 5 \\\\\nrag@3 & 26.20 [11.76, 42.20] & ${delta} & 0.125 & 5 \\\\` }],
    viewer: { baseline: 'closed-book', cells: run.cells.map((c) => ({ ...c, paired: run.paired.find((p) => p.condition === c.condition) ?? null })) } as unknown as RunDetail,
  });

  it('passes surfaces that print summary.json\'s numbers at their precision', () => {
    expect(surfaceProblems(run, surfaces('+26.20 [9.18, 44.00]'))).toEqual([]);
  });

  it('finds a Δ a surface leaves out', () => {
    const problems = surfaceProblems(run, surfaces('–'));
    expect(problems.filter((p) => p.includes('delta 26.2 of summary.json is not in the row')).map((p) => p.split(':')[0])).toEqual(['terminal', 'report.html', 'LaTeX']);
  });
});
