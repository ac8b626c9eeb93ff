import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRunForLabels } from '../../src/app/labelSample.js';
import { benchmarks } from '../../src/benchmarks/registry.js';
import { readLabels } from '../../src/runFiles/labelFiles.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { createLexicalJudge } from '../../src/scoring/judges/lexical.js';
import { parseRubric } from '../../src/scoring/rubric/parseRubric.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/runCli.js';

/** experiments/demo-judge.yaml, offline, its artefacts and run inside a temp dir. */
describe('the judge-check demo (experiments/demo-judge.yaml), offline through the CLI', () => {
  let dir: string;
  let runDir: string;
  let result: CliResult;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-judge-'));
    result = await runCli(['run', demoConfigIn(dir, () => {}, 'demo-judge.yaml', 'demo-judge.yaml'), '--run-id', 'judge', '--no-progress']);
    runDir = join(dir, 'runs', 'judge');
  }, 180_000);

  it('imports the bundled labels as synthetic and prints the judge-only Δ beside the corrected Δ and the bias per condition', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/labels: imported 16 SYNTHETIC label\(s\) for synthetic-lexical/);
    expect(result.stdout).toContain('SYNTHETIC LABELS');
    expect(result.stdout).toMatch(/Δ judge-only\s+Δ PPI\+\+\s+bias Δ/);
    expect(result.stdout).toMatch(/^extractive-baseline\s+rag@10\s+closed-book\s+14\s+8\s+\+\d/m);
    expect(result.stdout).toMatch(/^extractive-baseline\s+closed-book\s+14\s+8\s.*\+\d+\.\d \[/m);
  });

  it('writes the judge-only and corrected Δ and the bias per condition into summary.json and the report', () => {
    const summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    const check = summary.judgeCheck!;
    expect(check).toMatchObject({ synthetic: true, annotators: ['synthetic-lexical'], labelledAnswers: 16 });
    const delta = check.differences.find((d) => d.condition === 'rag@10')!;
    expect(delta).toMatchObject({ baseline: 'closed-book', n: 14, labelled: 8 });
    // The judge-only Δ is the run's own paired Δ; the biased judge inflates it, and the labels take much of it back.
    expect(delta.judgeOnly.estimate).toBeCloseTo(summary.paired.find((p) => p.condition === 'rag@10')!.meanDiff!, 9);
    expect(delta.ppiPlusPlus.estimate!).toBeLessThan(delta.judgeOnly.estimate! - 5);
    expect(delta.biasDifference!.estimate!).toBeGreaterThan(5);
    const bias = Object.fromEntries(check.means.map((m) => [m.condition, m.bias.estimate!]));
    expect(bias['rag@10']).toBeGreaterThan(bias['closed-book']! + 5);
    const report = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(report).toMatch(/id="judge-check"/);
    expect(report).toMatch(/SYNTHETIC/);
    expect(report).toContain(delta.ppiPlusPlus.estimate!.toFixed(1));
  });

  it('hisrag compare puts the corrected mean and Δ beside the judge-only ones (text and --json), the figures of summary.json', async () => {
    const summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    const json = await runCli(['compare', runDir, runDir, '--against', 'closed-book', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout);
    const rag = rows.find((r: { condition: string }) => r.condition === 'rag@10');
    const expected = summary.judgeCheck!.differences.find((d) => d.condition === 'rag@10')!;
    expect(rag.corrected.a).toBeNull();
    expect(rag.corrected.b.delta).toEqual({ baseline: 'closed-book', labelled: 8, judgeOnly: expected.judgeOnly, ppiPlusPlus: expected.ppiPlusPlus });
    expect(rag.corrected.b.mean.ppiPlusPlus).toEqual(summary.judgeCheck!.means.find((m) => m.condition === 'rag@10')!.ppiPlusPlus);
    expect(rag.paired.meanDiff).toBeCloseTo(expected.judgeOnly.estimate!, 9);
    const text = await runCli(['compare', runDir, runDir, '--against', 'closed-book']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('SYNTHETIC LABELS');
    const line = text.stdout.split('\n').find((l) => /^extractive-baseline\s+rag@10\s+B: judge\s/.test(l))!;
    expect(line).toContain(`+${expected.ppiPlusPlus.estimate!.toFixed(1)} [`);
    expect(line).toContain(`+${expected.judgeOnly.estimate!.toFixed(1)} [`);
  });

  it('hisrag rejudge with the plain lexical judge (offline) gives a panel row that agrees with the synthetic labels exactly (they are its verdicts)', async () => {
    const plan = await runCli(['rejudge', runDir, '--judge', 'lexical', '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    const rubricAnswers = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').filter((l) => JSON.parse(l).kind === 'rubric').length;
    expect(rubricAnswers).toBeGreaterThan(20);
    expect(plan.stdout).toContain(`${rubricAnswers} rubric answer(s) to judge with lexical (lexical, lexical@0.5); 0 already in judges/lexical.jsonl`);
    expect(plan.stdout).toContain('judge calls: 0 (an offline judge)');
    // A config file as --judge: its judge block (the run's own judge, here).
    const fromConfig = await runCli(['rejudge', runDir, '--judge', join(REPO_ROOT, 'experiments', 'demo-judge.yaml'), '--as', 'overcredit', '--dry-run']);
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(fromConfig.stdout).toContain(`${rubricAnswers} rubric answer(s) to judge with overcredit (lexical-overcredit, lexical-overcredit@0.4/0.05)`);
    const run = await runCli(['rejudge', runDir, '--judge', 'lexical']);
    expect(run.code, run.stderr).toBe(0);
    const table = await runCli(['judges', runDir, '--json']);
    const rows = JSON.parse(table.stdout).agreement;
    expect(rows.map((r: { judge: string }) => r.judge)).toEqual(['judge', 'lexical', 'majority(judge,lexical)']);
    const lexical = rows[1];
    expect([lexical.rubricPearson.estimate, lexical.kappa.estimate, lexical.answerPearson.estimate]).toEqual([1, 1, 1]);
    expect(rows[0].rubricPearson.estimate).toBeLessThan(1);
  });

  it('refuses a config whose label file is missing before answering anything (exit 2, no run folder)', async () => {
    const other = mkdtempSync(join(tmpdir(), 'hisrag-demo-judge-'));
    const config = demoConfigIn(other, (c) => (c.labels[0].file = join(other, 'nope.jsonl')), 'demo-judge.yaml', 'demo-judge.yaml');
    const result = await runCli(['run', config, '--run-id', 'missing', '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`labels[0].file: ${join(other, 'nope.jsonl')}: no such file`);
    expect(existsSync(join(other, 'runs', 'missing'))).toBe(false);
  });

  it('holds the labels the generating script says: the lexical judge’s verdicts of the run’s own answers', async () => {
    const labels = await readLabels(runDir, 'synthetic-lexical');
    expect(labels).toHaveLength(16);
    expect(labels.every((l) => l.synthetic === true && l.source === 'import:demo-judge-labels.jsonl')).toBe(true);
    const { config, records } = await readRunForLabels(runDir);
    const rubrics = new Map<string, string>();
    for (const spec of config.benchmarks) for (const item of await (await benchmarks.create(spec as { name: string }, undefined)).load()) rubrics.set(`${item.benchmark}:${item.id}`, item.rubrics!);
    const lexical = createLexicalJudge({ threshold: 0.5 });
    const byKey = new Map(records.map((r) => [r.key, r]));
    for (const label of labels) {
      const record = byKey.get(label.key)!;
      const text = rubrics.get(label.itemKey)!;
      const outcome = await lexical.judge({ question: record.question, answer: record.response!.text, rubricText: text, rubricItems: parseRubric(text) });
      expect(outcome.ok && outcome.verdicts, label.key).toEqual(label.verdicts);
    }
  });
});
