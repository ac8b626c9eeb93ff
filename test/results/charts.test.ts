import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartSeries } from '../../src/results/chartSeries.js';
import type { GroupMean } from '../../src/results/groupMeans.js';
import { htmlTable } from '../../src/results/htmlTable.js';
import { lineChartSvg } from '../../src/report/lineChart.js';
import { saveFigure, saveFigures } from '../../src/results/saveFigure.js';

const mean = (keys: GroupMean['keys'], m: number | null): GroupMean => ({ keys, n: 3, failed: 0, mean: m, ciLow: m === null ? null : m - 5, ciHigh: m === null ? null : m + 5 });

describe('chartSeries', () => {
  it('makes one line per series key over k and a reference line for closed-book', () => {
    const { series, references } = chartSeries(
      [mean({ condition: 'closed-book', k: null, retriever: null }, 20), mean({ k: 10, retriever: 'hnsw' }, 30), mean({ k: 20, retriever: 'hnsw' }, 35), mean({ k: 10, retriever: 'bm25' }, null)],
      { x: 'k', series: ['retriever'], reference: ['condition'] },
    );
    expect(series).toEqual([{ label: 'hnsw', points: [{ x: 10, y: 30, lo: 25, hi: 35 }, { x: 20, y: 35, lo: 30, hi: 40 }] }]);
    expect(references).toEqual([{ label: 'closed-book', y: 20, lo: 15, hi: 25 }]);
  });
});

describe('lineChartSvg', () => {
  it('draws a line with a CI band per series, dashed reference lines and escaped labels', () => {
    const svg = lineChartSvg({
      title: 'score vs k',
      xLabel: 'k',
      yLabel: 'score',
      series: [
        { label: 'a<b', points: [{ x: 10, y: 30, lo: 25, hi: 35 }, { x: 20, y: 40, lo: 35, hi: 45 }] },
        { label: 'c', points: [{ x: 10, y: 50 }] },
      ],
      references: [{ label: 'closed-book', y: 20, lo: 15, hi: 25 }],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/class="series-line"/g)).toHaveLength(2);
    expect(svg.match(/class="ci-band"/g)).toHaveLength(1);
    expect(svg.match(/class="reference-line"/g)).toHaveLength(1);
    expect(svg).toContain('a&lt;b');
    expect(svg).not.toContain('NaN');
  });
});

describe('lineChartSvg axis', () => {
  const yTicks = (svg: string) => [...svg.matchAll(/class="y-tick"[^>]*>([^<]+)</g)].map((m) => Number(m[1]));

  it.each([
    [[0, 55], [0, 20, 40, 60, 80]],
    [[19.7, 29.6], [20, 25, 30]],
    [[0.12, 0.47], [0, 0.2, 0.4, 0.6]],
  ])('puts y ticks on round numbers for data spanning %j', (range, expected) => {
    const svg = lineChartSvg({ xLabel: 'k', yLabel: 's', series: [{ label: 'a', points: range.map((y, i) => ({ x: i, y })) }] });
    expect(yTicks(svg)).toEqual(expected);
  });

  it('is wide enough to read on a laptop screen by default, and takes a CSS class', () => {
    const svg = lineChartSvg({ xLabel: 'k', yLabel: 's', series: [{ label: 'a', points: [{ x: 1, y: 2 }] }], className: 'depth-chart' });
    expect(Number(/width="(\d+)"/.exec(svg)![1])).toBeGreaterThanOrEqual(900);
    expect(svg).toMatch(/^<svg [^>]*class="depth-chart"/);
  });
});

describe('lineChartSvg legend', () => {
  it('cuts a label too long for the legend and keeps the whole label as its tooltip', () => {
    const long = 'a very long series label '.repeat(4);
    const svg = lineChartSvg({ xLabel: 'k', yLabel: 's', series: [{ label: long, points: [{ x: 1, y: 2 }] }] });
    expect(svg).toContain(`<title>${long}</title>`);
    expect(svg).toMatch(/…<\/text>/);
  });
});

describe('htmlTable', () => {
  it('flattens nested keys into columns, rounds numbers and escapes text', () => {
    const html = htmlTable([{ keys: { k: 10, model: '<m>' }, mean: 12.3456, ciLow: null }]);
    expect(html).toContain('<th>k</th><th>model</th><th>mean</th><th>ciLow</th>');
    expect(html).toContain('<td>10</td><td>&lt;m&gt;</td><td>12.35</td><td>–</td>');
  });
});

describe('saveFigure', () => {
  it('writes the SVG file as given and skips PNG when asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-fig-'));
    const svg = lineChartSvg({ xLabel: 'k', yLabel: 's', series: [{ label: 'a', points: [{ x: 1, y: 2 }] }] });
    const saved = await saveFigure(svg, join(dir, 'figs', 'depth.svg'), { png: false });
    expect(saved).toMatchObject({ svg: join(dir, 'figs', 'depth.svg'), png: null });
    expect(readFileSync(saved.svg, 'utf8')).toBe(svg);
  });

  it('skips PNG with a reason when no Chromium is at the given path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-fig-'));
    const saved = await saveFigure('<svg xmlns="http://www.w3.org/2000/svg"/>', join(dir, 'x'), { chromiumPath: join(dir, 'no-chromium') });
    expect(saved.png).toBeNull();
    expect(saved.reason).toMatch(/no Chromium/);
    expect(existsSync(join(dir, 'x.svg'))).toBe(true);
  });

  const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const hasChromium = existsSync(CHROMIUM);
  if (!hasChromium) console.warn(`PNG export test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  it.runIf(hasChromium)('renders several charts with one Chromium, each to its own PNG', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-fig-'));
    const chart = (w: number) => lineChartSvg({ xLabel: 'k', yLabel: 's', series: [{ label: 'a', points: [{ x: 1, y: 2 }] }], width: w, height: 200 });
    const saved = await saveFigures([{ svg: chart(300), path: join(dir, 'a') }, { svg: chart(500), path: join(dir, 'b') }], { chromiumPath: CHROMIUM });
    const pngs = saved.map((s) => readFileSync(s.png!));
    expect(pngs.map((png) => png.subarray(1, 4).toString('latin1'))).toEqual(['PNG', 'PNG']);
    // 2× device scale: 300 and 500 px wide charts give 600 and 1000 px wide PNGs
    expect(pngs.map((png) => png.readUInt32BE(16))).toEqual([600, 1000]);
  }, 60_000);
});
