import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile } from 'vega-lite';
import { lineFigureSpec, MAX_SERIES_PER_PLOT, type ChartSeries } from '../../src/figures/lineFigure.js';
import { figureSvg } from '../../src/figures/render.js';

const series = (n: number): ChartSeries[] =>
  Array.from({ length: n }, (_, i) => ({ label: `method ${i}`, points: [10, 20, 50].map((x) => ({ x, y: 40 + i + x / 10, lo: 35 + i, hi: 50 + i })) }));
/** The marks (one group per series for lines and bands) drawn by the named layer of a rendered figure. */
const pathsOf = (svg: string, layer: string) => svg.split(`role-mark ${layer}_marks"`).length - 1;

describe('lineFigureSpec', () => {
  it('is valid Vega-Lite with a tooltip carrying the interval, a legend that hides series and zoom bound to the scales', () => {
    const spec = lineFigureSpec({ xLabel: 'k', yLabel: 'score', series: series(2), references: [{ label: 'closed-book', y: 30, lo: 28, hi: 33 }] });
    expect(() => compile(spec as never)).not.toThrow();
    const text = JSON.stringify(spec);
    expect(text).toContain('"bind":"legend"');
    expect(text).toContain('"bind":"scales"');
    expect(text).toContain('"field":"interval"');
    expect(spec.width).toBe('container');
    const rows = (spec.data as { values: { series: string; interval: string }[] }).values;
    expect(rows.find((r) => r.series === 'method 0')!.interval).toBe('[35, 50]');
  });

  it('draws a line and a band per series, dashed reference lines and escaped labels', () => {
    const svg = figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 'score', series: [{ label: 'a<b', points: [{ x: 10, y: 30, lo: 25, hi: 35 }, { x: 20, y: 40, lo: 35, hi: 45 }] }, ...series(1)], references: [{ label: 'closed-book', y: 20, lo: 15, hi: 25 }] }), { className: 'depth-chart' });
    expect(svg).toMatch(/^<svg [^>]*class="marks depth-chart" role="img"/);
    expect(pathsOf(svg, 'series_line')).toBe(2);
    expect(pathsOf(svg, 'ci_band')).toBe(2);
    expect(svg).toContain('stroke-dasharray="5,4"');
    expect(svg).toContain('a&lt;b');
    expect(svg).not.toContain('NaN');
    expect(Number(/width="(\d+)"/.exec(svg)![1])).toBeGreaterThanOrEqual(900);
  });

  it('uses error bars instead of bands past a few series, and small multiples past six', () => {
    const four = figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 's', series: series(4) }));
    expect(pathsOf(four, 'ci_band')).toBe(0);
    expect(four).toContain('error_bar_marks');
    const ten = lineFigureSpec({ xLabel: 'k', yLabel: 's', series: series(10), references: [{ label: 'closed-book', y: 30 }] });
    expect(ten.facet).toBeDefined();
    const svg = figureSvg(ten);
    // one plot per series, each titled by its series and each with the reference line
    for (let i = 0; i < 10; i++) expect(svg).toContain(`>method ${i}</text>`);
    expect(svg.match(/role-mark reference_line_marks/g)!.length).toBe(10);
    // readable: the legend names the reference lines every plot repeats (and only them), and each plot keeps a usable width
    const legendLabels = [...svg.matchAll(/series_legend_labels"><text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(legendLabels).toEqual(['closed-book']);
    const plots = [...svg.matchAll(/<path class="background" d="M0\.5,0\.5h([\d.]+)v/g)].map((m) => Number(m[1]));
    expect(plots.length).toBe(10);
    for (const width of plots) expect(width).toBeGreaterThanOrEqual(250);
    expect(MAX_SERIES_PER_PLOT).toBe(6);
    expect(figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 's', series: series(6) }))).not.toContain('role-title');
  });

  it('gives each figure clip-path ids of its own, so many figures share one page', () => {
    const ids = (svg: string) => [...svg.matchAll(/id="([^"]+)"/g)].map((m) => m[1]!);
    const a = figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 's', series: series(1) }));
    const b = figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 's', series: series(2) }), { width: 520 });
    expect(ids(a).length).toBeGreaterThan(0);
    expect(ids(a).filter((id) => ids(b).includes(id))).toEqual([]);
    for (const id of ids(a)) expect(a).toContain(`url(#${id})`);
  });

  it('puts y ticks on round numbers', () => {
    const svg = figureSvg(lineFigureSpec({ xLabel: 'k', yLabel: 's', xScale: 'linear', series: [{ label: 'a', points: [0, 55].map((y, i) => ({ x: i, y })) }] }));
    const ticks = [...svg.matchAll(/>(-?[\d.]+)<\/text>/g)].map((m) => Number(m[1]));
    expect(ticks).toEqual(expect.arrayContaining([0, 10, 20, 30, 40, 50]));
    expect(ticks.filter((t) => t > 1 && t % 5 !== 0)).toEqual([]);
  });
});

describe('the report has no hand-written SVG', () => {
  it('src/report writes no <svg of its own: every figure is rendered from a spec of src/figures', () => {
    const dir = join(import.meta.dirname, '..', '..', 'src', 'report');
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8'), file).not.toMatch(/<svg|<polyline|<polygon/);
  });
});
