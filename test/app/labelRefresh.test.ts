import { appendFileSync, existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportLatex } from '../../src/app/figures.js';
import { regenerateReport, staleLabelsNote } from '../../src/app/rewriteReport.js';
import { loadRun } from '../../src/results/loadRun.js';
import { demoQuestions, makeLabelRun, verdictKeys } from '../helpers/labelRun.js';
import { runCli } from '../helpers/runCli.js';

/**
 * A run of the demo questions under closed-book and rag@10, the judge marking every rubric item hit
 * (score 50 by makeLabelRun). A person (zhang) labels the first three questions: rag@10 answers with
 * every bonus item hit and no deduction (score 100), closed-book answers with nothing hit (score 0)
 * except the first question's (100) — per-question Δ 0, 100, 100, labels-only Δ +66.67. A stand-in's
 * synthetic labels mark all six answers 0 (Δ 0); pooled with the person's they would give +33.33.
 */
const good = (rubrics: string) => Object.fromEntries(verdictKeys(rubrics).map((k) => [k, k.startsWith('加分项') ? 1 : 0]));
const bad = (rubrics: string) => Object.fromEntries(verdictKeys(rubrics).map((k) => [k, 0]));

function labelFile(dir: string, name: string, marks: (condition: string, i: number) => 'good' | 'bad'): string {
  const lines = demoQuestions()
    .slice(0, 3)
    .flatMap((q, i) => ['closed-book', 'rag@10'].map((condition) => ({ key: `m|${condition}|prohist:${q.id}`, verdicts: marks(condition, i) === 'good' ? good(q.rubrics) : bad(q.rubrics) })));
  const file = join(dir, name);
  writeFileSync(file, lines.map((l) => JSON.stringify(l) + '\n').join(''));
  return file;
}

const readSummary = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));

describe('labels imported with hisrag annotate --import show at once on every surface', () => {
  let root: string;
  let run: string;
  let imported: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'label-refresh-'));
    run = makeLabelRun(join(root, 'run1'), ['closed-book', 'rag@10']);
    await regenerateReport(run);
    expect(readSummary(run).judgeCheck).toBeUndefined();
    const person = labelFile(root, 'zhang.jsonl', (condition, i) => (condition === 'rag@10' || i === 0 ? 'good' : 'bad'));
    imported = await runCli(['annotate', run, '--import', person, '--annotator', 'zhang']);
  }, 120_000);

  it('scores the marks as hand-worked: 100 for every bonus item hit, 0 for none', () => {
    expect(imported.code, imported.stderr).toBe(0);
    const scores = readFileSync(join(run, 'labels', 'zhang.jsonl'), 'utf8').trim().split('\n').map((l) => [JSON.parse(l).condition, JSON.parse(l).score]);
    expect(scores).toEqual([['closed-book', 100], ['rag@10', 100], ['closed-book', 0], ['rag@10', 100], ['closed-book', 0], ['rag@10', 100]]);
  });

  it('summary.json, the terminal, summary.csv, tables/ and report.html carry the corrected Δ beside the judge-only one', () => {
    const summary = readSummary(run);
    const d = summary.judgeCheck.differences[0];
    expect(d).toMatchObject({ condition: 'rag@10', baseline: 'closed-book', labelled: 3, n: demoQuestions().length });
    expect(d.labelsOnly.estimate).toBeCloseTo(200 / 3, 9);
    // The judge scored every answer 50: its Δ is 0, the run's own paired Δ.
    expect(d.judgeOnly.estimate).toBe(0);
    expect(summary.judgeCheck).toMatchObject({ annotators: ['zhang'], synthetic: false });
    expect(imported.stdout).toContain(`Δ corrected (PPI++) ${d.ppiPlusPlus.estimate > 0 ? '+' : ''}${d.ppiPlusPlus.estimate.toFixed(1)}`);
    expect(imported.stdout).toContain('labels only +66.7');
    expect(imported.stdout).toContain('updated: summary.json');
    const csv = readFileSync(join(run, 'summary.csv'), 'utf8').trim().split('\n');
    const header = csv[0]!.split(',');
    const rag = csv.find((line) => line.startsWith('m,rag@10,'))!.split(',');
    expect(Number(rag[header.indexOf('diff_ppi')])).toBe(d.ppiPlusPlus.estimate);
    const table = readFileSync(join(run, 'tables', 'judge-check-differences.csv'), 'utf8').trim().split('\n');
    expect(Number(table[1]!.split(',')[table[0]!.split(',').indexOf('diff_labels_only')])).toBe(d.labelsOnly.estimate);
    const html = readFileSync(join(run, 'report.html'), 'utf8');
    expect(html).toContain('Δ corrected with labels (PPI++)');
    expect(html).toContain('id="judge-check"');
    expect(html).toContain('+66.7 [');
  });

  it('the notebooks’ API reads the same judge check', async () => {
    expect((await loadRun(run)).summary.judgeCheck).toEqual(readSummary(run).judgeCheck);
  });

  it('the LaTeX export carries the corrected column beside the judge-only Δ, and the judge-check tables', async () => {
    const out = join(root, 'paper');
    const { files } = await exportLatex(run, out);
    const d = readSummary(run).judgeCheck.differences[0];
    const conditions = readFileSync(join(out, 'conditions.tex'), 'utf8');
    expect(conditions).toContain('\\begin{tabular}{lrrrrr}');
    expect(conditions).toContain('condition & mean [95\\% CI] & $\\Delta$ [95\\% CI] & $\\Delta$ corrected [95\\% CI] &');
    const row = conditions.split('\n').find((line) => line.startsWith('rag@10 &'))!.split(' & ');
    expect(row[3]).toBe(`${d.ppiPlusPlus.estimate > 0.005 ? '+' : ''}${d.ppiPlusPlus.estimate.toFixed(2)} [${d.ppiPlusPlus.ciLow.toFixed(2)}, ${d.ppiPlusPlus.ciHigh.toFixed(2)}]`);
    expect(conditions).toContain("Corrected figures from a person's labels");
    expect(files).toContain(join(out, 'judge-check-differences.tex'));
    expect(readFileSync(join(out, 'judge-check-differences.tex'), 'utf8')).toContain('+66.7 [');
  });

  it('a stand-in’s synthetic labels imported beside them change no corrected figure, and are said to be left out', async () => {
    const before = readSummary(run).judgeCheck;
    const standin = labelFile(root, 'standin.jsonl', () => 'bad');
    const result = await runCli(['annotate', run, '--import', standin, '--annotator', 'standin', '--synthetic']);
    expect(result.code, result.stderr).toBe(0);
    const after = readSummary(run).judgeCheck;
    expect(after.differences).toEqual(before.differences);
    expect(after.means).toEqual(before.means);
    expect(after.syntheticLeftOut).toEqual({ annotators: ['standin'], answers: 6 });
    expect(result.stdout).toMatch(/Synthetic labels of standin \(6 answers\) are left out/);
    expect(readFileSync(join(run, 'report.html'), 'utf8')).toContain('standin (synthetic)');
  }, 60_000);

  it('a label file newer than summary.json is stale, and the export refreshes it before it writes', async () => {
    expect(await staleLabelsNote(run)).toBeNull();
    const q = demoQuestions()[3]!;
    const line = { version: 1, key: `m|rag@10|prohist:${q.id}`, itemKey: `prohist:${q.id}`, model: 'm', condition: 'rag@10', sample: 0, annotator: 'zhang', verdicts: good(q.rubrics), score: 100, at: '2026-01-02T00:00:00Z', source: 'import:hand.jsonl' };
    appendFileSync(join(run, 'labels', 'zhang.jsonl'), JSON.stringify(line) + '\n');
    const later = new Date(Date.now() + 5000);
    utimesSync(join(run, 'labels', 'zhang.jsonl'), later, later);
    expect(await staleLabelsNote(run)).toMatch(/labels changed after summary.json was written.*hisrag report/);
    const { refreshed } = await exportLatex(run, join(root, 'paper2'));
    expect(refreshed).toMatch(/refreshed before the export/);
    expect(readSummary(run).judgeCheck.labelledAnswers).toBe(7);
    expect(existsSync(join(root, 'paper2', 'judge-check-means.csv'))).toBe(true);
  });
});
