import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { exportLatex } from '../../src/app/figures.js';
import { writeRunSummary } from '../../src/runFiles/summaryFile.js';
import { pText } from '../../src/report/table.js';
import { makeRecord, scored } from '../experiment/fixtures.js';

async function runDir() {
  const conditions = ['closed-book', 'rag@10', 'rag@20', 'rag@50'];
  const records = [];
  for (let i = 0; i < 8; i++) for (const [j, condition] of conditions.entries()) records.push(makeRecord({ itemId: String(i), model: 'm_1', condition, score: scored(Math.min(100, 10 * j + 7 * (i % 3))) }));
  const summary = summarizeRun(records, { experiment: 'e', models: ['m_1'], conditions, baseline: 'closed-book', resamples: 200, seed: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-latex-'));
  await writeRunSummary(dir, summary);
  return { dir, summary };
}

const hasPdflatex = (() => {
  try {
    execFileSync('pdflatex', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasPdflatex) console.warn('LaTeX compile test skipped: no pdflatex (apt-get install texlive-latex-base texlive-latex-recommended)');

describe('hisrag export --latex', () => {
  it("writes booktabs tables whose numbers are summary.json's, with metric, interval method and family in the captions, and the figures as SVG", async () => {
    const { dir, summary } = await runDir();
    const out = join(dir, 'paper');
    const written = await exportLatex(dir, out);
    expect(written).toContain(join(out, 'conditions.tex'));
    expect(written).toContain(join(out, 'figures', 'score-vs-k.svg'));
    const tex = readFileSync(join(out, 'conditions.tex'), 'utf8');
    expect(tex).toContain('\\toprule');
    expect(tex).toContain('percentile bootstrap, 200 resamples, seed 1');
    expect(tex).toMatch(/Metric: /);
    expect(tex).toContain('m\\_1');
    const family = summary.paired.find((p) => p.family)?.family;
    expect(family).toBeDefined();
    expect(tex).toContain(`over the family ${family!.replace(/[_&%#$]/g, (c) => `\\${c}`)}`);
    for (const cell of summary.cells) {
      const row = tex.split('\n').find((line) => line.startsWith(`${cell.condition} &`))!.split(' & ');
      expect(row[1]).toBe(`${cell.score.mean!.toFixed(2)} [${cell.score.ciLow!.toFixed(2)}, ${cell.score.ciHigh!.toFixed(2)}]`);
      const d = summary.paired.find((p) => p.condition === cell.condition);
      if (d && d.meanDiff !== null) {
        expect(row[2]).toBe(`${d.meanDiff >= 0 ? '+' : ''}${d.meanDiff.toFixed(2)} [${d.ciLow!.toFixed(2)}, ${d.ciHigh!.toFixed(2)}]`);
        if (d.p != null) expect(row[3]).toBe(`${pText(d.pHolm ?? null)} / ${pText(d.pBH ?? null)}`);
      }
    }
    const curves = readFileSync(join(out, 'depth-curves.tex'), 'utf8');
    const curve = summary.depthCurves![0]!;
    expect(curves).toContain(`${curve.slope.estimate.toFixed(2)} [${curve.slope.ciLow.toFixed(2)}, ${curve.slope.ciHigh.toFixed(2)}] & ${curve.bestK} &`);
  });

  it.runIf(hasPdflatex)('compiles with pdflatex', async () => {
    const { dir } = await runDir();
    const out = join(dir, 'paper');
    await exportLatex(dir, out);
    writeFileSync(join(out, 'main.tex'), '\\documentclass{article}\\usepackage{booktabs}\\usepackage{amsmath}\\begin{document}\\input{conditions}\\input{depth-curves}\\end{document}\n');
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'main.tex'], { cwd: out, stdio: 'ignore' });
    expect(existsSync(join(out, 'main.pdf'))).toBe(true);
  }, 60_000);
});
