import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRun } from '../../src/results/loadRun.js';
import type { AnswerDetail, AnswerPage, CompareResult, RunDetail, RunListEntry } from '../../src/viewer/api.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { makeDemoRuns, type DemoRuns } from './demoRuns.js';

/** A raw GET (or other method) with the path exactly as given: no client-side normalisation of `..`. */
function raw(base: string, path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((name) => {
      const st = statSync(join(dir, name));
      return `${name} ${st.size} ${st.mtimeMs}`;
    })
    .join('\n');
}

describe('hisrag view: the server and its JSON API', () => {
  let dir: string;
  let demo: DemoRuns;
  let viewer: ViewerServer;
  let before: string;
  let outside: string;
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(new URL(path, viewer.url));
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-viewer-api-'));
    demo = await makeDemoRuns(dir, { methodsLimit: 4 });
    // A run outside the folder, reached by a link inside it; and a run whose report is a link to a secret.
    outside = join(dir, 'outside');
    mkdirSync(outside);
    cpSync(demo.demo, join(outside, 'secret-run'), { recursive: true });
    writeFileSync(join(dir, 'secret.txt'), 'SECRET');
    symlinkSync(join(outside, 'secret-run'), join(demo.runs, 'linked-out'));
    cpSync(demo.demo, join(demo.runs, 'report-link'), { recursive: true });
    const report = join(demo.runs, 'report-link', 'report.html');
    readFileSync(report);
    const { rmSync } = await import('node:fs');
    rmSync(report);
    symlinkSync(join(dir, 'secret.txt'), report);
    before = snapshot(demo.runs);
    viewer = await startViewer([demo.runs], { cacheDir: join(dir, 'view-cache') });
  }, 240_000);
  afterAll(async () => {
    await viewer?.close();
  });

  it('binds 127.0.0.1 on a free port and lists every run with its status, best condition and cost', async () => {
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const runs = await get<RunListEntry[]>('api/runs');
    expect(runs.map((r) => r.id).sort()).toEqual(['demo', 'demo-methods', 'demo-noise', 'report-link']);
    const entry = runs.find((r) => r.id === 'demo')!;
    const loaded = await loadRun(demo.demo);
    expect(entry).toMatchObject({ experiment: 'demo', status: 'done', models: ['extractive-baseline'], conditions: loaded.conditions, answers: 70, total: 70, items: 14, failures: 0, baseline: 'closed-book' });
    const best = [...loaded.summary.cells].sort((a, b) => b.score.mean! - a.score.mean!)[0]!;
    expect(entry.best).toMatchObject({ condition: best.condition, mean: best.score.mean });
    expect(entry.cost.tokens).toBeGreaterThan(0);
  });

  it('gives a run its summary (the project\'s summarizeRun), paired differences, groups and charts', async () => {
    const detail = await get<RunDetail>('api/runs/demo');
    const loaded = await loadRun(demo.demo);
    expect(detail.cells.map((c) => [c.condition, c.score.mean, c.score.ciLow])).toEqual(loaded.summary.cells.map((c) => [c.condition, c.score.mean, c.score.ciLow]));
    expect(detail.cells.find((c) => c.condition === 'rag@100')!.paired!.meanDiff).toBe(loaded.summary.paired.find((p) => p.condition === 'rag@100')!.meanDiff);
    expect(detail.groupKeys).toContain('category');
    expect(detail.groupValues.category).toContain('名词解释');
    expect(detail.charts[0]!.depth).toMatchObject({ $schema: expect.stringContaining('vega-lite'), width: 'container' });
    expect(detail.charts[0]!.pBest).toMatchObject({ $schema: expect.stringContaining('vega-lite'), width: 'container' });
    expect(detail.report).toBe(true);
  });

  it('answers paged, filtered queries over a condition\'s answers, with full-text search over question, answer and reference', async () => {
    const all = await get<AnswerPage>('api/runs/demo/answers?model=extractive-baseline&condition=rag%40100&limit=5');
    expect(all.total).toBe(14);
    expect(all.rows).toHaveLength(5);
    const byCategory = await get<AnswerPage>(`api/runs/demo/answers?model=extractive-baseline&condition=rag%40100&group=${encodeURIComponent('category=名词解释')}`);
    expect(byCategory.total).toBeGreaterThan(0);
    expect(byCategory.rows.every((r) => r.category === '名词解释')).toBe(true);
    // 商辂 is in a reference answer only (demo-prohist-001), not in its question.
    const search = await get<AnswerPage>(`api/runs/demo/answers?model=extractive-baseline&condition=closed-book&q=${encodeURIComponent('商辂')}`);
    expect(search.rows.map((r) => r.itemId)).toContain('demo-prohist-001');
    const scored = await get<AnswerPage>('api/runs/demo/answers?model=extractive-baseline&condition=rag%40100&scoreMin=50&sort=-score');
    expect(scored.rows.every((r) => r.score! >= 50)).toBe(true);
    expect(scored.rows.map((r) => r.score)).toEqual([...scored.rows.map((r) => r.score)].sort((a, b) => b! - a!));
    const differs = await get<AnswerPage>('api/runs/demo/answers?model=extractive-baseline&condition=rag%40100&differsFrom=rag%4010');
    expect(differs.rows.every((r) => r.otherScore !== r.score)).toBe(true);
  });

  it('compares two conditions: the paired Δ the summary has, counts of better / worse / same, cost Δ', async () => {
    const result = await get<CompareResult>('api/compare?ar=demo-noise&am=extractive-baseline&ac=closed-book&br=demo-noise&bm=extractive-baseline&bc=bm25%2Frag%4010&outcome=worse');
    const loaded = await loadRun(demo.noise);
    const paired = loaded.summary.paired.find((p) => p.condition === 'bm25/rag@10')!;
    expect(result.meanDiff).toBeCloseTo(paired.meanDiff!, 10);
    expect(result.n).toBe(paired.n);
    expect(result.counts.worse).toBeGreaterThan(0);
    expect(result.items.rows.every((r) => r.diff < 0)).toBe(true);
    expect(result.cost.b.tokens).toBeGreaterThan(result.cost.a.tokens!);
    // Each side's cost is its cell's summary figure, the one every surface shows.
    const costB = loaded.summary.cells.find((c) => c.model === 'extractive-baseline' && c.condition === 'bm25/rag@10')!.cost!;
    expect(result.cost.b).toEqual({ n: costB.n, tokens: costB.promptTokens + costB.completionTokens, price: costB.price, retrievalCalls: costB.retrievalCalls, generationCalls: costB.generationCalls, durationMs: costB.durationMs });
    // The metric the δ of the diagnostics and the means are on is named (the run's own).
    expect(result.metric).toBe(loaded.summary.metric?.id ?? loaded.summary.cells[0]!.metric);
    // Across runs over the same items: demo's rag@100 against demo-methods' closed-book (4 of the same questions).
    const across = await get<CompareResult>('api/compare?ar=demo-methods&am=extractive-baseline&ac=closed-book&br=demo&bm=extractive-baseline&bc=rag%40100');
    expect(across.n).toBe(4);
    expect(across.unpaired.b).toBe(10);
  });

  it('gives an answer\'s page: record, reference, passages in rank order with gold and reached-the-prompt, the other conditions', async () => {
    const page = await get<AnswerPage>('api/runs/demo-noise/answers?model=extractive-baseline&condition=gold-middle%2Frag%405&limit=1');
    const key = page.rows[0]!.key;
    const detail = await get<AnswerDetail>(`api/runs/demo-noise/answer?key=${encodeURIComponent(key)}`);
    expect(detail.record.key).toBe(key);
    expect(detail.passages.map((p) => p.rank)).toEqual([...detail.passages.map((p) => p.rank)].sort((a, b) => a - b));
    expect(detail.passages.filter((p) => p.gold).length).toBeGreaterThan(0);
    expect(detail.passages.some((p) => p.inPrompt)).toBe(true);
    expect(detail.item!.gold.length).toBeGreaterThan(0);
    expect(detail.others.map((o) => o.condition)).toContain('closed-book');
    const prohist = await get<AnswerDetail>(`api/runs/demo/answer?key=${encodeURIComponent('extractive-baseline|rag@100|prohist:demo-prohist-001')}`);
    expect(prohist.item!.reference).toContain('三元及第');
    expect(prohist.item!.rubrics).toContain('加分项');
    expect(Object.keys(prohist.record.score.verdicts ?? {})).toContain('加分项_1');
  });

  it('serves only the runs it was given: traversal, encoded traversal, absolute paths and outside links give 404', async () => {
    const paths = [
      '/../../etc/passwd',
      '/runs/../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/runs/demo/..%2f..%2fsecret.txt',
      '/runs/demo/%2e%2e%2fconfig.json',
      '/runs/demo/config.json',
      '/runs/demo/items.jsonl',
      '//etc/passwd',
      '/etc/passwd',
      `/${join(dir, 'secret.txt')}`,
      `/api/runs/${encodeURIComponent(join(outside, 'secret-run'))}`,
      '/api/runs/..%2Foutside%2Fsecret-run',
      '/api/runs/linked-out',
      '/api/runs/linked-out/answers?model=extractive-baseline&condition=rag%40100',
      '/runs/linked-out/report.html',
      '/runs/report-link/report.html',
      '/runs/demo/report.html/..',
      '/app.js/..%5c..%5csecret.txt',
      '/api/runs/demo/answer?key=..%2F..%2Fsecret.txt',
      '/api/runs/%E0%A4%A', // a malformed escape
    ];
    for (const path of paths) {
      const response = await raw(viewer.url, path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain('SECRET');
    }
    // The run's own report is served.
    expect((await raw(viewer.url, '/runs/demo/report.html')).status).toBe(200);
  });

  it('is read-only: other methods are refused and nothing in the run folders changes', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) expect((await raw(viewer.url, '/api/runs', method)).status).toBe(405);
    expect(snapshot(demo.runs)).toBe(before);
  });

  it('reads a run in progress incrementally: appended answers appear, a torn last line waits for its newline', async () => {
    const live = join(demo.runs, 'live');
    mkdirSync(live);
    for (const name of ['config.json']) cpSync(join(demo.demo, name), join(live, name));
    const manifest = JSON.parse(readFileSync(join(demo.demo, 'manifest.json'), 'utf8'));
    writeFileSync(join(live, 'manifest.json'), JSON.stringify({ ...manifest, complete: false, finishedAt: null, sessions: [{ startedAt: manifest.startedAt, pid: process.pid }] }));
    const lines = readFileSync(join(demo.demo, 'items.jsonl'), 'utf8').trim().split('\n');
    appendFileSync(join(live, 'items.jsonl'), lines.slice(0, 10).join('\n') + '\n');
    await new Promise((r) => setTimeout(r, 1100)); // the folder is rescanned at most once a second
    let entry = (await get<RunListEntry[]>('api/runs')).find((r) => r.id === 'live')!;
    expect(entry.status).toBe('in progress');
    // A new run is indexed in the background; afterwards, appends are read by the request that sees them.
    await viewer.store.whenIndexed('live');
    entry = (await get<RunListEntry[]>('api/runs')).find((r) => r.id === 'live')!;
    expect(entry).toMatchObject({ status: 'in progress', answers: 10, index: { state: 'ready' } });
    appendFileSync(join(live, 'items.jsonl'), lines.slice(10, 30).join('\n') + '\n' + lines[30]!.slice(0, 50));
    entry = (await get<RunDetail>('api/runs/live')).run;
    expect(entry.answers).toBe(30);
    appendFileSync(join(live, 'items.jsonl'), lines[30]!.slice(50) + '\n');
    expect((await get<RunDetail>('api/runs/live')).run.answers).toBe(31);
  });
});
