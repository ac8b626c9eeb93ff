import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderRunFigures } from '../../src/app/figures.js';
import { DataFileError, InputError } from '../../src/errors.js';
import { lineFigureSpec } from '../../src/figures/lineFigure.js';

function runWithFigure(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-figures-'));
  mkdirSync(join(dir, 'figures'));
  const spec = lineFigureSpec({ xLabel: 'k', yLabel: 'score', series: [{ label: 'rag', points: [{ x: 10, y: 30, lo: 25, hi: 35 }, { x: 20, y: 40, lo: 35, hi: 45 }] }] });
  // A researcher's restyle: a title and another colour.
  writeFileSync(join(dir, 'figures', 'score-vs-k.vl.json'), JSON.stringify({ ...spec, title: 'Restyled for the paper' }));
  return dir;
}

describe('hisrag figures (renderRunFigures)', () => {
  it('renders each saved spec, as edited, to an SVG beside it', async () => {
    const dir = runWithFigure();
    const saved = await renderRunFigures(dir);
    expect(saved.map((s) => s.svg)).toEqual([join(dir, 'figures', 'score-vs-k.svg')]);
    const svg = readFileSync(saved[0]!.svg, 'utf8');
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('Restyled for the paper');
  });

  it('names the file of a spec that is not JSON or not drawable, and a run without figures', async () => {
    const dir = runWithFigure();
    writeFileSync(join(dir, 'figures', 'broken.vl.json'), '{ not json');
    await expect(renderRunFigures(dir)).rejects.toThrow(DataFileError);
    await expect(renderRunFigures(dir)).rejects.toThrow(/broken\.vl\.json: not JSON/);
    writeFileSync(join(dir, 'figures', 'broken.vl.json'), JSON.stringify({ mark: 'no-such-mark', data: { values: [] } }));
    await expect(renderRunFigures(dir)).rejects.toThrow(/broken\.vl\.json: not a Vega-Lite spec/);
    await expect(renderRunFigures(mkdtempSync(join(tmpdir(), 'hisrag-nofig-')))).rejects.toThrow(InputError);
  });

  const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const hasChromium = existsSync(CHROMIUM);
  if (!hasChromium) console.warn(`figure PDF test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  it.runIf(hasChromium)('prints a PDF of each figure with --format pdf', async () => {
    const dir = runWithFigure();
    const [saved] = await renderRunFigures(dir, { format: 'pdf', chromiumPath: CHROMIUM });
    expect(saved!.pdf).toBe(join(dir, 'figures', 'score-vs-k.pdf'));
    expect(readFileSync(saved!.pdf!).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 60_000);
});
