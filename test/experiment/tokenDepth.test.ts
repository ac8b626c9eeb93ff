import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import type { RunSummary } from '../../src/runFiles/summary.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import { minimumDetectableDifference } from '../../src/statistics/power.js';
import { figureViolations } from '../../src/figures/figureViolations.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { writeTokenDepthStudy } from './tokenDepthFixture.js';

let dir: string;
let result: CliResult;
let records: RunItemRecord[];
let summary: RunSummary;
const runDir = () => join(dir, 'runs', 'r');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hisrag-token-depth-'));
  result = await runCli(['run', writeTokenDepthStudy(dir), '--run-id', 'r', '--no-progress']);
  records = readFileSync(join(runDir(), 'items.jsonl'), 'utf8').trim().split('\n').map((line) => RunItemRecordSchema.parse(JSON.parse(line)));
  summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(runDir(), 'summary.json'), 'utf8')));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('depth as a context budget in tokens, on two corpora chunked differently', () => {
  it('runs a condition per retriever × budget, named `<retriever>/rag@<tokens>tok`', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    for (const name of ['small/rag@150tok', 'small/rag@600tok', 'large/rag@300tok', 'large/rag@30']) expect(result.stdout).toMatch(new RegExp(`^${name}\\s`, 'm'));
  });

  it('never exceeds the budget and fills it to within one chunk, checked against the chunk texts and the ranking', () => {
    const budgeted = records.filter((r) => r.contextTokens !== undefined);
    expect(budgeted).toHaveLength(2 * 3 * 10);
    let filledBeyondOneChunk = 0;
    for (const r of budgeted) {
      const budget = r.contextTokens!;
      const tokens = r.retrieved.reduce((sum, c) => sum + estimateTokens(c.text), 0);
      expect(r.k).toBeNull();
      expect(r.context).toEqual({ chunks: r.retrieved.length, tokens });
      expect(tokens).toBeLessThanOrEqual(budget);
      // The ranking: the same retriever's k=30 list for the same question.
      const deep = records.find((d) => d.retriever === r.retriever && d.k === 30 && d.itemId === r.itemId)!;
      const ranking = deep.retrieved;
      expect(r.retrieved.map((c) => c.id)).toEqual(ranking.slice(0, r.retrieved.length).map((c) => c.id));
      const clipped = r.retrieved.length === 1 && r.retrieved[0]!.text !== ranking[0]!.text;
      if (clipped) {
        // The best chunk alone was over the budget: cut to it, a prefix of its text.
        expect(ranking[0]!.text.startsWith(r.retrieved[0]!.text)).toBe(true);
        expect(estimateTokens(ranking[0]!.text)).toBeGreaterThan(budget);
        continue;
      }
      for (const [i, c] of r.retrieved.entries()) expect(c.text).toBe(ranking[i]!.text);
      const next = ranking[r.retrieved.length];
      if (next) expect(tokens + estimateTokens(next.text)).toBeGreaterThan(budget);
      else expect(ranking.length).toBeLessThan(30);
      if (next) filledBeyondOneChunk += 1;
    }
    // The check above bit: most budgets stopped at a next chunk that did not fit.
    expect(filledBeyondOneChunk).toBeGreaterThan(20);
  });

  it('is planned and priced before the run like k: the plan built every budget prompt exactly', () => {
    const plan = JSON.parse(readFileSync(join(runDir(), 'plan.json'), 'utf8')) as { cells: { condition: string; basis: string; promptTokens: { min: number; max: number } }[] };
    for (const condition of ['small/rag@150tok', 'large/rag@600tok']) {
      const cell = plan.cells.find((c) => c.condition === condition)!;
      const spent = records.filter((r) => r.condition === condition).reduce((sum, r) => sum + r.cost!.promptTokens, 0);
      expect(cell.basis).toBe('exact');
      expect(cell.promptTokens).toEqual({ min: spent, max: spent });
    }
  });

  it('records the chunks and context tokens of every retrieving answer, also at a depth k', () => {
    for (const r of records.filter((x) => x.k !== null)) {
      expect(r.context!.chunks).toBe(r.contextIds.length);
      expect(r.context!.tokens).toBe(r.retrieved.filter((c) => r.contextIds.includes(c.id)).reduce((sum, c) => sum + estimateTokens(c.text), 0));
    }
    expect(records.find((r) => r.condition === 'closed-book')!.context).toBeUndefined();
  });
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('depth curves against context tokens', () => {
  it('summary.json: every curve (k and budgets, both chunkings) is also fitted against the mean context tokens of its conditions', () => {
    const curves = summary.depthCurves!;
    expect(curves.map((c) => `${c.retriever}:${c.unit}:${c.corpus}`).sort()).toEqual(['large:contextTokens:mini-l', 'large:k:mini-l', 'small:contextTokens:mini-s', 'small:k:mini-s']);
    for (const curve of curves) {
      const t = curve.againstTokens!;
      // The tokens are the cells' means, recomputed from the records.
      const recomputed = curve.conditions.map((condition) => mean(records.filter((r) => r.condition === condition).map((r) => r.context!.tokens)));
      t.tokens.forEach((x, i) => expect(x).toBeCloseTo(recomputed[i]!, 9));
      // The slope per ln tokens is the least-squares slope of the means against ln tokens.
      const x = t.tokens.map(Math.log);
      const xm = mean(x);
      const slope = x.reduce((a, v, i) => a + (v - xm) * curve.means[i]!, 0) / x.reduce((a, v) => a + (v - xm) ** 2, 0);
      expect(t.slope.estimate).toBeCloseTo(slope, 9);
      expect(t.slope.ciLow).toBeLessThanOrEqual(t.slope.estimate);
      // The best depth is the same on both axes, named by its tokens, with the same P(best).
      const best = curve.depths.indexOf(curve.bestK);
      expect(t.bestTokens).toBe(t.tokens[best]);
      expect(t.probabilityBest).toEqual(curve.probabilityBest);
    }
    const cell = summary.cells.find((c) => c.condition === 'large/rag@300tok')!;
    expect(cell).toMatchObject({ k: null, contextTokens: 300, corpus: 'mini-l' });
  });

  it('the terminal shows a chunking × depth grid: a row per corpus, a column per k and per budget', () => {
    const grid = result.stdout.slice(result.stdout.indexOf('chunking × depth:'));
    expect(grid.split('\n')[1]).toMatch(/^strategy · chunking +k=2 +k=8 +k=30 +150tok +300tok +600tok$/);
    const cell = summary.cells.find((c) => c.condition === 'large/rag@8')!;
    expect(grid).toMatch(new RegExp(`^rag · mini-l .* ${cell.score.mean!.toFixed(2)} \\(${Math.round(cell.context!.tokens)} tok\\)`, 'm'));
  });

  it('the terminal shows each curve against tokens, with its chunking', () => {
    expect(result.stdout).toMatch(/^ {2}rag·small \(budgets\): slope [-+][\d.]+ .*best \d+tok \(P\(best\) 150:/m);
    expect(result.stdout).toMatch(/^ {4}against tokens \(chunking mini-l\), means \d+, \d+, \d+: slope per ln tokens [-+][\d.]+ \[[-\d.]+, [-\d.]+\]; best ≈ \d+ tokens/m);
    expect(result.stdout.match(/against tokens \(chunking/g)).toHaveLength(4);
  });

  it('the report draws score against context tokens, one line per retriever (its chunking) in a panel per depth kind, with the fitted table', () => {
    const html = readFileSync(join(runDir(), 'report.html'), 'utf8');
    const section = html.slice(html.indexOf('<h2 id="context-tokens">'));
    expect(section).toContain('<svg');
    expect(section).toContain('class="depth-curves-tokens"');
    expect(section).toMatch(/<td>mini-s<\/td>/);
    const spec = JSON.parse(readFileSync(join(runDir(), 'figures', 'score-vs-context-tokens.vl.json'), 'utf8'));
    const rows: { series: string; kind: string; x: number; panel: string }[] = findValues(spec);
    const lines = new Set(rows.filter((r) => r.kind === 'series').map((r) => `${r.panel}: ${r.series}`));
    expect([...lines].sort()).toEqual(['by context budget: large', 'by context budget: small', 'by retrieval depth k: large', 'by retrieval depth k: small']);
    expect(figureViolations(spec)).toEqual([]);
    // Each line and the closed-book reference have colours of their own.
    const scale = JSON.stringify(spec).match(/"domain":(\[[^\]]*\]),"range":(\[[^\]]*\])/)!;
    expect(JSON.parse(scale[1]!)).toContain('closed-book');
    expect(new Set(JSON.parse(scale[2]!)).size).toBe(JSON.parse(scale[1]!).length);
  });
});

/** The inline data rows of a Vega-Lite spec (every view's, in a figure of panels). */
function findValues(spec: unknown): any[] {
  if (!spec || typeof spec !== 'object') return [];
  if (Array.isArray(spec)) return spec.flatMap(findValues);
  const o = spec as Record<string, unknown>;
  if (Array.isArray(o.values)) return o.values as any[];
  return Object.values(o).flatMap(findValues);
}

/** Exact two-sided paired sign-flip p over every sign pattern (each question its own cluster). */
function exactSignFlipP(diffs: number[]): number {
  const observed = Math.abs(diffs.reduce((a, b) => a + b, 0));
  let extreme = 0;
  for (let pattern = 0; pattern < 2 ** diffs.length; pattern++) {
    const total = diffs.reduce((a, d, c) => a + (pattern & (1 << c) ? -d : d), 0);
    if (Math.abs(total) >= observed * (1 - 1e-12) - 1e-12) extreme++;
  }
  return extreme / 2 ** diffs.length;
}

function holm(ps: number[]): number[] {
  const order = ps.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(ps.length);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (ps.length - rank) * p));
    out[i] = running;
  });
  return out;
}

function benjaminiHochberg(ps: number[]): number[] {
  const order = ps.map((p, i) => [p, i] as const).sort((a, b) => b[0] - a[0]);
  const out = new Array<number>(ps.length);
  let running = 1;
  order.forEach(([p, i], j) => {
    running = Math.min(running, (ps.length * p) / (ps.length - j));
    out[i] = running;
  });
  return out;
}

describe('depth steps and chunkings at equal context as families', () => {
  it('names both families and recomputes every Δ, p and adjusted p from the records', () => {
    const families = summary.families!.filter((f) => f.kind);
    expect(families.map((f) => f.kind)).toEqual(['depth', 'chunking']);
    const comparisons = summary.depthComparisons!;
    // Depth steps: 2 retrievers × (k: 2 steps + budgets: 2 steps); chunkings: 3 budgets + the k pairs.
    const steps = comparisons.filter((d) => d.family === families[0]!.name);
    expect(steps.map((d) => `${d.condition} − ${d.baseline}`)).toContain('small/rag@30 − small/rag@8');
    expect(steps.map((d) => `${d.condition} − ${d.baseline}`)).toContain('large/rag@600tok − large/rag@300tok');
    expect(steps).toHaveLength(8);
    const chunkings = comparisons.filter((d) => d.family === families[1]!.name);
    for (const tokens of [150, 300, 600]) expect(chunkings.map((d) => `${d.condition} − ${d.baseline}`)).toContain(`small/rag@${tokens}tok − large/rag@${tokens}tok`);
    // Every k of mini-l is paired with the k of mini-s nearest in mean context tokens.
    const cell = (condition: string) => summary.cells.find((c) => c.condition === condition)!;
    for (const d of chunkings.filter((x) => !x.condition.endsWith('tok'))) {
      const a = cell(d.baseline).context!.tokens;
      const nearest = [2, 8, 30].map((k) => cell(`small/rag@${k}`)).sort((x, y) => Math.abs(Math.log(x.context!.tokens / a)) - Math.abs(Math.log(y.context!.tokens / a)))[0]!;
      expect(d.condition).toBe(nearest.condition);
    }
    for (const [family, members] of [[families[0]!, steps], [families[1]!, chunkings]] as const) {
      expect(family.size).toBe(members.length);
      const ps = members.map((d) => {
        const score = (condition: string) => new Map(records.filter((r) => r.condition === condition).map((r) => [r.itemId, r.score.score!]));
        const b = score(d.condition);
        const a = score(d.baseline);
        const diffs = [...b.keys()].sort().map((id) => b.get(id)! - a.get(id)!);
        expect(d.meanDiff).toBeCloseTo(mean(diffs), 9);
        const p = exactSignFlipP(diffs);
        expect(d.p).toBeCloseTo(p, 12);
        return p;
      });
      holm(ps).forEach((p, i) => expect(members[i]!.pHolm).toBeCloseTo(p, 12));
      benjaminiHochberg(ps).forEach((p, i) => expect(members[i]!.pBH).toBeCloseTo(p, 12));
    }
  });

  it('prints each family with its adjusted p in the terminal and the report', () => {
    expect(result.stdout).toMatch(/^depth steps: 8 comparisons.*Holm and BH adjusted over the family$/m);
    expect(result.stdout).toMatch(/^small\/rag@150tok − large\/rag@150tok +[-+][\d.]+ \[.*\] +[\d.<]+ \([\d.<]+, [\d.<]+\) +10$/m);
    const html = readFileSync(join(runDir(), 'report.html'), 'utf8');
    expect(html).toContain('<h2 id="depth-families">');
    expect(html).toContain('small/rag@600tok − large/rag@600tok');
    expect(html).toContain(summary.families!.find((f) => f.kind === 'chunking')!.name);
  });
});

describe('power before the run covers the depth and chunking families', () => {
  it('lists every depth step and chunking pair the summary tests, each at the Bonferroni level of its own family', async () => {
    const power = await runCli(['power', join(dir, 'depth.yaml'), '--sd', '30']);
    expect(power.stderr).not.toContain('internal error');
    expect(power.code).toBe(0);
    const rows = power.stdout.split('\n').filter((line) => line.startsWith('extractive ')).map((line) => line.trim().split(/\s{2,}/));
    const families = summary.families!.filter((f) => f.kind);
    for (const family of families) {
      const members = summary.depthComparisons!.filter((d) => d.family === family.name);
      const mdd = minimumDetectableDifference(30, 10, 1, { alpha: 0.05 / members.length, power: 0.8 }).toFixed(1);
      for (const d of members) {
        const row = rows.find((r) => r[1] === d.condition && r[2] === d.baseline);
        expect(row, `${d.condition} vs ${d.baseline}`).toBeDefined();
        expect(row![8]).toBe(mdd);
      }
      expect(power.stdout).toContain(family.name);
    }
    // Against the baseline as before, and nothing more than the three families.
    expect(rows).toHaveLength(12 + summary.depthComparisons!.length);
  }, 60_000);
});
