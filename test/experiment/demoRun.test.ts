import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema } from '../../src/runFiles/itemRecord.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/runCli.js';
import { CHROMIUM, closePages, sharedBrowser } from '../helpers/chromium.js';

/** The bundled demo config, reduced (5 questions, k ∈ {10, 20}) and writing into a temp dir. */
function reducedDemoConfig(dir: string): string {
  return demoConfigIn(
    dir,
    (config) => {
      config.retrieval.k = [10, 20];
      config.benchmark.limit = 5;
    },
    'demo-reduced.yaml',
  );
}

describe('the demo, end to end through the CLI', () => {
  let dir: string;
  let result: CliResult;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-'));
    result = await runCli(['run', reducedDemoConfig(dir), '--run-id', 'reduced', '--no-progress']);
  }, 180_000);

  it('exits 0 and prints the table with closed-book and every depth', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    for (const row of ['closed-book', 'rag@10', 'rag@20']) expect(result.stdout).toMatch(new RegExp(`^${row}\\s`, 'm'));
    expect(result.stdout).toContain('offline stand-in');
    // The embedder's model is named a fixture by the hisrag_fixture record of its config.json.
    expect(result.stdout).toMatch(/^embedder for .*\(generated fixture model: an offline stand-in for bge-large-zh-v1\.5\)$/m);
    expect(result.stdout).toContain(`report: ${join(dir, 'runs', 'reduced', 'report.html')}`);
  });

  it('writes the run directory: config, manifest, items, summary, CSV and report', () => {
    const runDir = join(dir, 'runs', 'reduced');
    for (const f of ['config.json', 'manifest.json', 'items.jsonl', 'summary.json', 'summary.csv', 'report.html']) {
      expect(existsSync(join(runDir, f)), f).toBe(true);
    }
    const lines = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(5 * 3);
    const records = lines.map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
    expect(new Set(records.map((r) => r.key)).size).toBe(15);
    const rag = records.find((r) => r.condition === 'rag@20')!;
    expect(rag.retrieved).toHaveLength(20);
    expect(rag.contextIds.length).toBeGreaterThan(0);
    expect(rag.score.status).toBe('scored');
    expect(rag.score.verdicts).toBeDefined();
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ complete: true, experiment: 'demo', models: ['extractive-baseline'], conditions: ['closed-book', 'rag@10', 'rag@20'] });
    expect(manifest.indexManifests.hnsw).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(manifest.components.retrievers.hnsw.corpusHash).toMatch(/^sha256:/);
    expect(manifest.hisragVersion).toBeTruthy();
    const summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    expect(summary.conditions).toEqual(['closed-book', 'rag@10', 'rag@20']);
    expect(summary.cells.every((c) => c.score.ciLow !== null)).toBe(true);
  });

  it('re-running into the same run directory is refused with a hint to resume', async () => {
    const again = await runCli(['run', join(dir, 'demo-reduced.yaml'), '--run-id', 'reduced', '--no-progress']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already holds a run; use --resume/);
  });

  it('resuming a finished run answers nothing new and keeps the summary', async () => {
    const runDir = join(dir, 'runs', 'reduced');
    const before = readFileSync(join(runDir, 'summary.json'), 'utf8');
    const resumed = await runCli(['run', '--resume', runDir, '--no-progress']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('(15 already done, 0 to go)');
    expect(readFileSync(join(runDir, 'summary.json'), 'utf8')).toBe(before);
  });

  it.runIf(existsSync(CHROMIUM))('writes a report that Chromium opens, with the depth chart and the tables', async () => {
    const browser = await sharedBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(join(dir, 'runs', 'reduced', 'report.html')).href);
      // The figure is Vega's: one series line and the closed-book reference line.
      expect(await page.locator('svg.depth-chart g[class*="series_line_marks"]').count()).toBe(1);
      expect(await page.locator('svg.depth-chart g[class*="reference_line_marks"]').count()).toBe(1);
      expect(await page.locator('table.conditions tr').count()).toBe(4);
      expect(await page.locator('table.groups').count()).toBeGreaterThan(0);
      expect(await page.locator('details.question').count()).toBe(5);
    } finally {
      await closePages(browser);
    }
  });

  it('regenerates the report with `hisrag report`', async () => {
    const report = await runCli(['report', join(dir, 'runs', 'reduced')]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^rag@10\s/m);
  });
});

describe('bad input to `hisrag run`', () => {
  it('exits 2 naming the config field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-bad-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: bad\nbenchmark: { name: prohist, file: x.json }\nstrategies: [rag]\nmodels: [{ name: extractive }]\nretrieval: { k: [10, 0], retriever: { name: hnsw, index: i } }\n');
    const result = await runCli(['run', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('retrieval.k[1]: expected a positive integer');
  });

  it('exits 2 naming an unknown component and the known ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-bad-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: bad\nbenchmark: { name: prohist, file: x.json }\nstrategies: [closed-book]\nmodels: [{ name: gpt5 }]\n');
    const result = await runCli(['run', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/models\[0\]\.name: unknown generator "gpt5" \(known: .*extractive/);
  });

  it('exits 2 naming the data file, record and field of a ProHist question without rubrics, before answering anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-bad-'));
    const data = join(dir, 'bench.json');
    writeFileSync(data, JSON.stringify([
      { id: 'a', category: '名词解释', question: '解释糊名。', rubrics: '加分项：\n1、弥封{+2}' },
      { id: 'b', category: '简答题', question: '殿试由谁主持？', reference_answer: '皇帝' },
    ]));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, `name: bad\noutput: ${join(dir, 'runs')}\nbenchmark: { name: prohist, file: ${data} }\nstrategies: [closed-book]\nmodels: [{ name: extractive }]\n`);
    const result = await runCli(['run', file, '--run-id', 'bad']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${data}: [1].rubrics: missing`);
    expect(existsSync(join(dir, 'runs', 'bad', 'items.jsonl'))).toBe(false);
  });

  it('exits 2 when the questions of one run would be scored by different metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-bad-'));
    const qa = join(dir, 'qa.jsonl');
    writeFileSync(qa, JSON.stringify({ id: 'x', question: '唐朝都城？', reference_answer: '长安' }) + '\n');
    const file = join(dir, 'mixed.yaml');
    writeFileSync(
      file,
      `name: mixed\noutput: ${join(dir, 'runs')}\nbenchmarks:\n  - { name: prohist, file: ${join(REPO_ROOT, 'experiments/data/demo-prohist.json')} }\n  - { name: jsonl, file: ${qa} }\nstrategies: [closed-book]\nmodels: [{ name: extractive }]\n`,
    );
    const result = await runCli(['run', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/scored by different metrics \([^)]*1 by rougeL[^)]*\d+ by rs\)/);
  });
});
