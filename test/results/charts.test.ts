import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartSeries } from '../../src/results/chartSeries.js';
import type { GroupMean } from '../../src/results/groupMeans.js';
import { htmlTable } from '../../src/results/htmlTable.js';
import { lineFigureSpec } from '../../src/figures/lineFigure.js';
import { figureSvg } from '../../src/figures/render.js';
import { saveFigure, saveFigures } from '../../src/results/saveFigure.js';

const mean = (keys: GroupMean['keys'], m: number | null): GroupMean => ({ keys, n: 3, failed: 0, mean: m, ciLow: m === null ? null : m - 5, ciHigh: m === null ? null : m + 5 });

describe('chartSeries', () => {
  it('makes one line per series key over k and a reference line for closed-book', () => {
    const { series, references } = chartSeries(
      [mean({ condition: 'closed-book', k: null, retriever: null }, 20), mean({ k: 10, retriever: 'hnsw' }, 30), mean({ k: 20, retriever: 'hnsw' }, 35), mean({ k: 10, retriever: 'bm25' }, null)],
      { x: 'k', series: ['retriever'], reference: ['condition'] },
    );
    expect(series).toEqual([{ label: 'hnsw', points: [{ x: 10, y: 30, lo: 25, hi: 35, factors: { retriever: 'hnsw' } }, { x: 20, y: 35, lo: 30, hi: 40, factors: { retriever: 'hnsw' } }] }]);
    expect(references).toEqual([{ label: 'closed-book', y: 20, lo: 15, hi: 25 }]);
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
    const svg = figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 's', series: [{ label: 'a', points: [{ x: 1, y: 2 }] }] }));
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
    const chart = (w: number) => figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 's', series: [{ label: 'a', points: [{ x: 1, y: 2 }] }], height: 200 }), { width: w });
    const svgs = [chart(400), chart(600)];
    const widths = svgs.map((svg) => Number(/<svg[^>]* width="(\d+)"/.exec(svg)![1]));
    const saved = await saveFigures([{ svg: svgs[0]!, path: join(dir, 'a') }, { svg: svgs[1]!, path: join(dir, 'b') }], { chromiumPath: CHROMIUM });
    const pngs = saved.map((s) => readFileSync(s.png!));
    expect(pngs.map((png) => png.subarray(1, 4).toString('latin1'))).toEqual(['PNG', 'PNG']);
    // 2× device scale: each PNG is twice its chart's width
    expect(widths[1]! - widths[0]!).toBe(200);
    expect(pngs.map((png) => png.readUInt32BE(16))).toEqual(widths.map((w) => 2 * w));
  }, 60_000);
});
