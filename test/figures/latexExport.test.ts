import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { exportLatex } from '../../src/app/figures.js';
import { writeRunSummary } from '../../src/runFiles/summaryFile.js';
import { texP } from '../../src/report/latex.js';
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
    const { files: written, engine } = await exportLatex(dir, out);
    expect(engine).toBe('pdflatex');
    expect(written).toContain(join(out, 'main.tex'));
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
        if (d.p != null) expect(row[3]).toBe(`${texP(d.pHolm)} / ${texP(d.pBH)}`);
      }
    }
    const curves = readFileSync(join(out, 'depth-curves.tex'), 'utf8');
    const curve = summary.depthCurves![0]!;
    expect(curves).toContain(`${curve.slope.estimate.toFixed(2)} [${curve.slope.ciLow.toFixed(2)}, ${curve.slope.ciHigh.toFixed(2)}] & ${curve.bestK} &`);
  });

  it('sets Chinese names with xeCJK under XeLaTeX, and every engine sets the signs hisrag writes', async () => {
    const { latexDocument, latexTables, texEscape } = await import('../../src/report/latex.js');
    expect(texEscape('Δ − δ × · – 50% a_b')).toBe('$\\Delta$ $-$ $\\delta$ $\\times$ $\\cdot$ -- 50\\% a\\_b');
    expect(texP(0.0001)).toBe('$<$0.001');
    const { summary } = await runDir();
    const latin = latexDocument(summary, latexTables(summary), []);
    expect(latin).not.toContain('xeCJK');
    const chinese = { ...summary, models: ['通义千问'], cells: summary.cells.map((c) => ({ ...c, model: '通义千问' })), paired: summary.paired.map((p) => ({ ...p, model: '通义千问' })), depthCurves: summary.depthCurves!.map((c) => ({ ...c, model: '通义千问' })) };
    const cjk = latexDocument(chinese, latexTables(chinese), []);
    expect(cjk).toContain('\\usepackage{xeCJK}');
    expect(cjk).toContain('\\ifXeTeX\\else\\errmessage');
  });

  it.runIf(hasPdflatex)('main.tex compiles with pdflatex', async () => {
    const { dir } = await runDir();
    const out = join(dir, 'paper');
    await exportLatex(dir, out);
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', 'main.tex'], { cwd: out, stdio: 'ignore' });
    expect(existsSync(join(out, 'main.pdf'))).toBe(true);
  }, 60_000);
});
