import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli } from '../helpers/runCli.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const hasPdflatex = (() => {
  try {
    execFileSync('pdflatex', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasPdflatex) console.warn('demo LaTeX compile test skipped: no pdflatex (apt-get install --no-install-recommends texlive-latex-base texlive-latex-recommended texlive-fonts-recommended)');
if (!hasChromium) console.warn(`demo LaTeX export: figures are not printed to PDF, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** Every number a table cell prints (`+19.71 [4.29, 37.79]` → 19.71, 4.29, 37.79; `$<$0.001` → 0.001), `--` when empty. */
const numbers = (cell: string) => (cell.trim() === '--' ? [] : [...cell.matchAll(/[-+]?\d+(?:\.\d+)?/g)].map((m) => Number(m[0])));
/** The body rows of a booktabs table, split into cells. */
const rows = (tex: string) => tex.slice(tex.indexOf('\\midrule') + 8, tex.indexOf('\\bottomrule')).trim().split('\n').map((line) => line.replace(/\\\\$/, '').split(' & ').map((c) => c.trim()));
/** A value printed with `places` decimals equals the value (rounding), a p-value below 0.001 prints as <0.001. */
function expectPrinted(printed: number | undefined, value: number | null, places = 2) {
  if (value === null) return;
  expect(printed).toBeDefined();
  expect(Math.abs(printed! - value)).toBeLessThanOrEqual(0.5 * 10 ** -places + 1e-9);
}

describe('hisrag export --latex on the demo run', () => {
  let out: string;
  let summary: any;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-latex-demo-'));
    const run = await runCli(['run', demoConfigIn(dir), '--run-id', 'demo', '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    summary = JSON.parse(readFileSync(join(dir, 'runs', 'demo', 'summary.json'), 'utf8'));
    out = join(dir, 'paper');
    const exported = await runCli(['export', join(dir, 'runs', 'demo'), '--latex', out, '--pdf']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(`cd ${out} && pdflatex main.tex`);
  }, 180_000);

  it("prints summary.json's numbers in the conditions and depth-curve tables", () => {
    const conditions = rows(readFileSync(join(out, 'conditions.tex'), 'utf8'));
    expect(conditions.map((r) => r[0])).toEqual(summary.conditions);
    for (const [condition, mean, delta, p, n] of conditions) {
      const cell = summary.cells.find((c: any) => c.condition === condition);
      const [m, lo, hi] = numbers(mean!);
      expectPrinted(m, cell.score.mean);
      expectPrinted(lo, cell.score.ciLow);
      expectPrinted(hi, cell.score.ciHigh);
      expect(Number(n)).toBe(cell.scored);
      const d = summary.paired.find((x: any) => x.condition === condition);
      if (!d) {
        expect([delta, p]).toEqual(['--', '--']);
        continue;
      }
      const [diff, dLo, dHi] = numbers(delta!);
      expectPrinted(diff, d.meanDiff);
      expectPrinted(dLo, d.ciLow);
      expectPrinted(dHi, d.ciHigh);
      const [holm, bh] = p!.split(' / ');
      for (const [printed, value] of [[holm!, d.pHolm], [bh!, d.pBH]] as const) {
        if (value < 0.001) expect(printed).toBe('$<$0.001');
        else expectPrinted(numbers(printed)[0], value, 3);
      }
    }
    const curves = rows(readFileSync(join(out, 'depth-curves.tex'), 'utf8'));
    expect(curves).toHaveLength(summary.depthCurves.length);
    for (const [i, [, slope, bestK, pBest, gap, n]] of curves.entries()) {
      const curve = summary.depthCurves[i];
      const [s, sLo, sHi] = numbers(slope!);
      expectPrinted(s, curve.slope.estimate);
      expectPrinted(sLo, curve.slope.ciLow);
      expectPrinted(sHi, curve.slope.ciHigh);
      expect(Number(bestK)).toBe(curve.bestK);
      expectPrinted(Number(pBest), curve.probabilityBest[curve.depths.indexOf(curve.bestK)]);
      const [g, gLo, gHi] = numbers(gap!);
      expectPrinted(g, curve.deepestMinusBest.estimate);
      expectPrinted(gLo, curve.deepestMinusBest.ciLow);
      expectPrinted(gHi, curve.deepestMinusBest.ciHigh);
      expect(Number(n)).toBe(curve.n);
    }
  });

  it('names the metric, the interval method and the family in every caption, figures included', () => {
    const captions = ['conditions.tex', 'depth-curves.tex', 'main.tex'].flatMap((f) => [...readFileSync(join(out, f), 'utf8').matchAll(/\\caption\{(.*)\}$/gm)].map((m) => m[1]!));
    expect(captions.length).toBe(2 + (hasChromium ? 3 : 0));
    for (const caption of captions) {
      expect(caption).toContain(`Metric: ${summary.metric.name}`);
      expect(caption).toContain(`percentile bootstrap, ${summary.bootstrap.resamples} resamples, seed ${summary.bootstrap.seed}`);
      expect(caption).toContain(summary.families[0].name);
    }
  });

  it.runIf(hasPdflatex)('main.tex compiles with pdflatex, the figures set from their PDFs', () => {
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'main.tex'], { cwd: out, stdio: 'ignore' });
    expect(existsSync(join(out, 'main.pdf'))).toBe(true);
    const log = readFileSync(join(out, 'main.log'), 'utf8');
    for (const figure of ['score-vs-k', 'p-best', 'score-vs-cost']) {
      expect(existsSync(join(out, 'figures', `${figure}.svg`))).toBe(true);
      if (hasChromium) expect(log).toContain(`<figures/${figure}.pdf`);
    }
    expect(log).not.toMatch(/Missing character|Undefined control sequence/);
  }, 60_000);
});
