import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { axisLabels } from '../helpers/figureAxes.js';

/** Whether `step` is 1, 2 or 5 times a power of ten. */
function isRoundStep(step: number): boolean {
  const power = 10 ** Math.floor(Math.log10(step));
  return [1, 2, 5, 10].some((m) => Math.abs(step - m * power) < 1e-9 * power);
}

describe('the demo report (70 answers)', () => {
  let dir: string;
  let result: CliResult;
  let html: string;
  let bytes: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-report-'));
    result = await runCli(['run', demoConfigIn(dir), '--run-id', 'full', '--no-progress']);
    const path = join(dir, 'runs', 'full', 'report.html');
    html = readFileSync(path, 'utf8');
    bytes = statSync(path).size;
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is under 300 KB besides its figures, each figure under 10 KB', () => {
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'runs', 'full', 'items.jsonl'), 'utf8').trim().split('\n')).toHaveLength(70);
    const figures = [...html.matchAll(/<svg[^>]*class="marks[\s\S]*?<\/svg>/g)].map((m) => Buffer.byteLength(m[0]));
    expect(figures.length).toBe(3); // score vs k, P(best k), score vs cost
    for (const figure of figures) expect(figure).toBeLessThan(10 * 1024);
    expect(bytes - figures.reduce((a, b) => a + b, 0)).toBeLessThan(300 * 1024);
  });

  it('marks † the row whose bootstrap CI of Δ leaves 0 out while the sign-flip p is above 0.05 (rag@10: p = 0.061), with the note', () => {
    const rag10 = /<tr><td>rag@10<\/td>[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
    expect(rag10).toMatch(/0\.061 <span class="ci">\([^)]*\)<\/span> †/);
    expect(/<tr><td>rag@20<\/td>[\s\S]*?<\/tr>/.exec(html)?.[0]).not.toMatch(/†/);
    expect(html).toMatch(/† the bootstrap CI of Δ and the sign-flip p disagree about 0/);
  });

  it("reads its chart's y axis in round numbers, evenly spaced, and its x axis in the depths", () => {
    const svg = /<svg[^>]*class="marks depth-chart"[\s\S]*?<\/svg>/.exec(html)?.[0];
    expect(svg).toBeDefined();
    const axes = axisLabels(svg!);
    const ticks = axes[1]!.map(Number);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    const step = ticks[1]! - ticks[0]!;
    expect(isRoundStep(step), `tick step ${step} (${ticks.join(', ')})`).toBe(true);
    ticks.forEach((tick, i) => {
      expect(tick % step).toBe(0);
      if (i > 0) expect(tick - ticks[i - 1]!).toBeCloseTo(step, 9);
    });
    expect(axes[0]).toEqual(['10', '20', '50', '100']);
    expect(Number(/<svg[^>]*width="(\d+)"/.exec(svg!)![1])).toBeGreaterThanOrEqual(900);
  });

  it('saves each figure of the report as a Vega-Lite spec beside it', () => {
    const spec = JSON.parse(readFileSync(join(dir, 'runs', 'full', 'figures', 'score-vs-k.vl.json'), 'utf8')) as { $schema: string; width: string };
    expect(spec.$schema).toMatch(/vega-lite/);
    expect(spec.width).toBe('container');
    expect(existsSync(join(dir, 'runs', 'full', 'figures', 'score-vs-cost.vl.json'))).toBe(true);
    expect(existsSync(join(dir, 'runs', 'full', 'figures', 'p-best.vl.json'))).toBe(true);
  });

  it('draws the depth curve\'s P(best k) from its figure spec, per depth on a 0–1 axis', () => {
    const svg = /<svg[^>]*class="marks p-best-chart"[\s\S]*?<\/svg>/.exec(html)?.[0];
    expect(svg).toBeDefined();
    const axes = axisLabels(svg!);
    expect(axes[0]).toEqual(['10', '20', '50', '100']);
    expect(axes[1]!.map(Number)[0]).toBe(0);
    expect(axes[1]!.map(Number).at(-1)).toBe(1);
    expect(svg).toMatch(/series_line_marks/);
  });

  it('stores each retrieved passage once, and answers link to it', () => {
    const passages = [...html.matchAll(/<div class="chunk" id="p(\d+)">/g)].map((m) => Number(m[1]));
    expect(passages.length).toBeGreaterThan(20);
    expect(new Set(passages).size).toBe(passages.length);
    const records = readFileSync(join(dir, 'runs', 'full', 'items.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const text: string = records.find((r: { k: number | null }) => r.k === 10).retrieved[0].text;
    expect(html.split(text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')).length - 1).toBe(1);
    const links = new Set([...html.matchAll(/href="#p(\d+)"/g)].map((m) => Number(m[1])));
    expect([...links].every((n) => passages.includes(n))).toBe(true);
  });

  it('keeps judge bookkeeping out of "Text metrics", and tables from wrapping', () => {
    const textMetrics = /<table class="text-metrics">[\s\S]*?<\/table>/.exec(html)?.[0];
    expect(textMetrics).toBeDefined();
    expect(textMetrics).toContain('<th>rougeL</th>');
    expect(textMetrics).not.toMatch(/judge/i);
    expect(html).toMatch(/td,th\{[^}]*white-space:nowrap/);
    expect(html).toContain('<div class="scroll"><table class="conditions">');
  });
});
