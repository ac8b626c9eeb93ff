import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { exportLatex } from '../../src/app/figures.js';
import { sectionCsv } from '../../src/report/csv.js';
import { renderReportHtml } from '../../src/report/html.js';
import { latexTables } from '../../src/report/latex.js';
import { reportSections } from '../../src/report/sections.js';
import { summaryTable } from '../../src/report/table.js';
import type { AnswerLabel } from '../../src/runFiles/labels.js';
import type { RunSummary } from '../../src/runFiles/summary.js';
import { writeRunSummary } from '../../src/runFiles/summaryFile.js';
import { makeRecord, scored } from '../experiment/fixtures.js';

/**
 * A chunking sweep with Chinese names: closed-book (闭卷) and RAG over two chunkings (小块, 大块) at
 * k = 1 and 3, four questions, every answer of a condition the same score (10, 20, 30, 40, 50), so
 * each mean is its score. The chunkings' mean context tokens (18, 29, 65, 77) and the span metrics are
 * set by hand on the summary, as a run writes them; a stand-in's synthetic labels mark two conditions.
 */
const MODEL = '通义千问';
const SCORES: Record<string, number> = { 闭卷: 10, '小块/检索@1': 20, '小块/检索@3': 30, '大块/检索@1': 40, '大块/检索@3': 50 };
const TOKENS: Record<string, number> = { '小块/检索@1': 18, '小块/检索@3': 29, '大块/检索@1': 65, '大块/检索@3': 77 };
const QUESTIONS = ['1', '2', '3', '4'];

function sweep(): RunSummary {
  const records = QUESTIONS.flatMap((q) => Object.entries(SCORES).map(([condition, score]) => makeRecord({ itemId: q, model: MODEL, condition, score: scored(score) })));
  const labels: AnswerLabel[] = QUESTIONS.slice(0, 2).flatMap((q) =>
    ['闭卷', '小块/检索@1'].map((condition) => ({ version: 1 as const, key: `${MODEL}|${condition}|b:${q}`, itemKey: `b:${q}`, model: MODEL, condition, sample: 0, annotator: '替身', score: SCORES[condition]! - 5, at: '2026-01-01T00:00:00Z', source: 'import:s.jsonl', synthetic: true })),
  );
  const summary = summarizeRun(records, { experiment: '分块', models: [MODEL], conditions: Object.keys(SCORES), baseline: '闭卷', resamples: 200, seed: 1, labels });
  for (const cell of summary.cells) {
    if (cell.k === null) continue;
    cell.corpus = cell.condition.split('/')[0]!;
    cell.context = { n: QUESTIONS.length, chunks: cell.k, tokens: TOKENS[cell.condition]! };
    cell.spanRetrieval = { charRecall: { n: 4, mean: cell.k === 1 ? 0.5 : 0.75, ciLow: 0.25, ciHigh: 1 } };
  }
  return summary;
}

const tabularSpecs = (tex: string) => [...tex.matchAll(/\\begin\{tabular\}\{([^}]*)\}/g)].map((m) => m[1]!);
const rowOf = (tex: string, start: string) => tex.split('\n').find((line) => line.startsWith(start));

describe('LaTeX, CSV, the report and the terminal carry the same sections with the same numbers', () => {
  const summary = sweep();

  it('has every section of a labelled chunking sweep', () => {
    expect(reportSections(summary).map((t) => t.name)).toEqual(['conditions', 'depth-curves', 'depth-families', 'chunking-depth', 'span-retrieval', 'judge-check-means', 'judge-check-differences', 'judge-check-agreement']);
  });

  it('the LaTeX tables right-align every number column (no lllll)', () => {
    const tables = latexTables(summary);
    expect(tables.map((t) => t.name)).toContain('span-retrieval');
    for (const { tex } of tables) for (const spec of tabularSpecs(tex)) expect(spec).toMatch(/^l+r+$/);
    expect(tabularSpecs(tables.find((t) => t.name === 'conditions')!.tex)).toEqual(['lrrrrr']);
  });

  it('chunking × depth: mean score (context tokens) per chunking and k, hand-worked, in LaTeX, CSV, report and terminal', () => {
    const tex = latexTables(summary).find((t) => t.name === 'chunking-depth')!.tex;
    expect(tex).toContain('strategy $\\cdot$ chunking & k=1 & k=3 \\\\');
    expect(rowOf(tex, '小块/检索 $\\cdot$ 小块')).toBe('小块/检索 $\\cdot$ 小块 & 20.00 (18 tok) & 30.00 (29 tok) \\\\');
    expect(rowOf(tex, '大块/检索 $\\cdot$ 大块')).toBe('大块/检索 $\\cdot$ 大块 & 40.00 (65 tok) & 50.00 (77 tok) \\\\');
    const csv = sectionCsv(reportSections(summary).find((t) => t.name === 'chunking-depth')!).trim().split('\n');
    expect(csv[0]).toBe('row,k1,k1_tokens,k3,k3_tokens');
    expect(csv[1]).toBe('小块/检索 · 小块,20,18,30,29');
    const html = renderReportHtml({ summary, records: [], manifest: { version: 1 } as never });
    expect(html).toContain('<td>小块/检索 · 小块</td><td>20.00 (18 tok)</td><td>30.00 (29 tok)</td>');
    expect(summaryTable(summary)).toMatch(/^小块\/检索 · 小块\s+20\.00 \(18 tok\)\s+30\.00 \(29 tok\)$/m);
  });

  it('span retrieval: each metric with its interval, three decimals, in LaTeX, CSV, report and terminal', () => {
    const tex = latexTables(summary).find((t) => t.name === 'span-retrieval')!.tex;
    expect(rowOf(tex, '小块/检索@1 &')).toBe('小块/检索@1 & 0.500 [0.250, 1.000] \\\\');
    expect(rowOf(tex, '大块/检索@3 &')).toBe('大块/检索@3 & 0.750 [0.250, 1.000] \\\\');
    const csv = sectionCsv(reportSections(summary).find((t) => t.name === 'span-retrieval')!).trim().split('\n');
    expect(csv[0]).toBe('condition,charRecall,charRecall_ci_low,charRecall_ci_high');
    expect(csv[1]).toBe('小块/检索@1,0.5,0.25,1');
    const html = renderReportHtml({ summary, records: [], manifest: { version: 1 } as never });
    expect(html).toContain('0.500 [0.250, 1.000]');
    expect(summaryTable(summary)).toMatch(/^大块\/检索@3\s+0\.750 \[0\.250, 1\.000\]$/m);
  });

  it('the conditions table puts the corrected Δ beside the judge-only one and says the labels are synthetic', () => {
    const tex = latexTables(summary).find((t) => t.name === 'conditions')!.tex;
    const corrected = summary.judgeCheck!.differences.find((d) => d.condition === '小块/检索@1')!;
    // The judge gives 20 and 10, the stand-in 15 and 5 on the two labelled questions: the labels-only Δ is 10, as the judge's.
    expect(corrected.labelsOnly.estimate).toBe(10);
    const row = rowOf(tex, '小块/检索@1 &')!.split(' & ');
    expect(row[2]).toBe('+10.00 [10.00, 10.00]');
    expect(row[3]).toBe(`+${corrected.ppiPlusPlus.estimate!.toFixed(2)} [${corrected.ppiPlusPlus.ciLow!.toFixed(2)}, ${corrected.ppiPlusPlus.ciHigh!.toFixed(2)}]`);
    expect(tex).toContain('$\\Delta$ corrected (synthetic labels)');
    expect(tex).toContain('SYNTHETIC LABELS: the corrected figures rest on 4 answers labelled by 替身');
  });

  const hasXelatex = (() => {
    try {
      execFileSync('xelatex', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  if (!hasXelatex) console.warn('XeLaTeX compile test skipped: no xelatex (apt-get install --no-install-recommends texlive-xetex texlive-lang-cjk fonts-noto-cjk)');

  it.runIf(hasXelatex)('the export compiles with xelatex with Chinese names, every table set, no character missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-xelatex-'));
    await writeRunSummary(dir, summary);
    const out = join(dir, 'paper');
    const { engine } = await exportLatex(dir, out);
    expect(engine).toBe('xelatex');
    execFileSync('xelatex', ['-interaction=nonstopmode', '-halt-on-error', 'main.tex'], { cwd: out, stdio: 'ignore', timeout: 120_000 });
    expect(existsSync(join(out, 'main.pdf'))).toBe(true);
    const log = readFileSync(join(out, 'main.log'), 'utf8');
    expect(log).not.toMatch(/Missing character|Undefined control sequence/);
    for (const name of ['conditions', 'chunking-depth', 'span-retrieval', 'judge-check-differences']) expect(log).toContain(`${name}.tex`);
  }, 180_000);
});
