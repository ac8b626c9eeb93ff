import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadExperimentConfig } from '../../src/config/load.js';
import { methodsByStrategy } from '../../src/experiment/cellMethod.js';
import { RunSummarySchema } from '../../src/runFiles/summary.js';
import { summarizeRun } from '../../src/analysis/summary.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { summaryCsv } from '../../src/report/csv.js';
import { groupMeans, loadRun, tidyRows } from '../../src/results/index.js';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';
import { demoExternalIn, freePort } from '../methods/externalFixtures.js';
import { makeRecord, scored } from './fixtures.js';

/** RFC 4180 CSV (quoted fields may hold commas and doubled quotes) as rows keyed by the header. */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && (c === ',' || c === '\n')) {
      row.push(field);
      field = '';
      if (c === '\n') {
        rows.push(row);
        row = [];
      }
    } else {
      field += c;
    }
  }
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

describe('every summary cell names the method that produced it', () => {
  it("takes each strategies: entry's registry name and params, label and depths left out, secrets redacted", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-cell-method-'));
    const file = join(dir, 'e.yaml');
    writeFileSync(
      file,
      stringify({
        name: 'e',
        benchmark: { name: 'prohist', file: join(REPO_ROOT, 'experiments/data/demo-prohist.json') },
        retrieval: { retriever: { name: 'bm25', index: 'indexes/x' }, k: [5] },
        strategies: ['closed-book', { name: 'ircot', label: 'ircot-3', maxSteps: 3, k: [5, 10] }, { name: 'http', label: 'rag-service', url: 'http://127.0.0.1:1/ask', headers: { Authorization: 'Bearer sk-secret' } }],
        models: [{ name: 'extractive' }],
      }),
    );
    const methods = methodsByStrategy(await loadExperimentConfig(file));
    expect(methods['closed-book']).toEqual({ name: 'closed-book', params: {} });
    expect(methods['ircot-3']).toEqual({ name: 'ircot', params: { maxSteps: 3 } });
    expect(methods['rag-service']).toEqual({ name: 'http', params: { url: 'http://127.0.0.1:1/ask', headers: { Authorization: '[redacted]' } } });
  });

  it('puts it in the cell (summary.json) and in the CSV’s method and method_params columns', () => {
    const records = [1, 2, 3].flatMap((i) => [
      makeRecord({ itemId: String(i), condition: 'closed-book', strategy: 'closed-book', score: scored(20) }),
      makeRecord({ itemId: String(i), condition: 'rag-service', strategy: 'rag-service', retriever: null, k: null, score: scored(40) }),
    ]);
    const methods = { 'closed-book': { name: 'closed-book', params: {} }, 'rag-service': { name: 'http', params: { url: 'http://127.0.0.1:1/ask' } } };
    const summary = summarizeRun(records, { experiment: 'e', models: ['m'], conditions: ['closed-book', 'rag-service'], baseline: 'closed-book', resamples: 100, seed: 1, methods });
    expect(summary.cells.find((c) => c.condition === 'rag-service')!.methodSpec).toEqual(methods['rag-service']);
    expect(RunSummarySchema.parse(JSON.parse(JSON.stringify(summary))).cells[1]!.methodSpec!.name).toBe('http');
    const rows = parseCsv(summaryCsv(summary)) as Record<string, string>[];
    const service = rows.find((r) => r.condition === 'rag-service' && r.group === 'all')!;
    expect(service.method).toBe('http');
    expect(JSON.parse(service.method_params!)).toEqual({ url: 'http://127.0.0.1:1/ask' });
    // A summary from before cells named their method still reads, with the columns empty.
    const old = summarizeRun(records, { experiment: 'e', models: ['m'], conditions: ['closed-book'], baseline: 'closed-book', resamples: 100, seed: 1 });
    expect(old.cells[0]).not.toHaveProperty('methodSpec');
    expect((parseCsv(summaryCsv(old)) as Record<string, string>[])[0]!.method).toBe('');
  });

  it("demo-external: external systems' cells say http, langchain-runnable and outputs; the results API groups by method", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-cell-method-demo-'));
    const result = await runCli(['run', demoExternalIn(dir, await freePort(), (config) => delete config.diagnostics), '--run-id', 'ext', '--no-progress', '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    const runDir = join(dir, 'runs', 'ext');
    const summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    const methodOf = (condition: string) => summary.cells.find((c) => c.condition === condition)!.methodSpec!;
    expect(methodOf('closed-book')).toEqual({ name: 'closed-book', params: {} });
    expect(methodOf('standard@3').name).toBe('standard');
    expect(methodOf('rag-service')).toMatchObject({ name: 'http', params: { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/ask$/), concurrency: 4 } });
    expect(methodOf('lcel-chain')).toMatchObject({ name: 'langchain-runnable', params: { module: 'examples/lcel-chain.ts', export: 'createChain' } });
    expect(methodOf('saved')).toMatchObject({ name: 'outputs', params: { file: 'experiments/data/demo-external-outputs.jsonl' } });
    const csv = parseCsv(readFileSync(join(runDir, 'summary.csv'), 'utf8')) as Record<string, string>[];
    expect(csv.find((r) => r.condition === 'saved' && r.group === 'all')!.method).toBe('outputs');

    // The results API: every answer row carries its method, and groupMeans groups by it.
    const run = await loadRun(runDir);
    expect(run.summary.cells.map((c) => c.methodSpec?.name)).toEqual(summary.cells.map((c) => c.methodSpec!.name));
    const rows = tidyRows(run);
    expect(rows.find((r) => r.condition === 'lcel-chain')).toMatchObject({ method: 'langchain-runnable', methodParams: { export: 'createChain' } });
    const byMethod = groupMeans(rows, ['method'], { resamples: 100 });
    expect(byMethod.map((g) => g.keys.method).sort()).toEqual(['closed-book', 'http', 'langchain-runnable', 'outputs', 'standard']);
    expect(byMethod.every((g) => g.n === 20)).toBe(true);
  }, 180_000);
});
