import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawRunLabelSample } from '../../src/app/labelSample.js';
import { readLabelHistory, readLabels } from '../../src/runFiles/labelFiles.js';
import { LABEL_TOKEN_HEADER, LABEL_TOKEN_META, type LabelPage, type LabelSaved } from '../../src/viewer/labelApi.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { makeLabelRun } from '../helpers/labelRun.js';

describe('hisrag view: label writes', () => {
  let run: string;
  let viewer: ViewerServer;
  let token: string;
  let origin: string;
  let page: LabelPage;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'label-server-'));
    run = makeLabelRun(join(root, 'run1'), ['closed-book', 'rag@10']);
    await drawRunLabelSample(run, { size: 5, seed: 1 });
    viewer = await startViewer([root], { cacheDir: join(root, 'cache') });
    origin = new URL(viewer.url).origin;
    const html = await (await fetch(viewer.url)).text();
    token = new RegExp(`<meta name="${LABEL_TOKEN_META}" content="([^"]+)">`).exec(html)![1]!;
    page = (await (await fetch(`${viewer.url}api/runs/run1/labels?annotator=ann`)).json()) as LabelPage;
  });
  afterAll(async () => viewer?.close());

  const marksOf = (task: LabelPage['tasks'][number], hit: 0 | 1) => Object.fromEntries(task.rubric.map((r) => [r.key, hit]));
  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(`${viewer.url}api/runs/run1/labels`, { method: 'POST', headers, body: JSON.stringify(body) });

  it('serves the drawn answers blind: no condition, model or judge verdicts', () => {
    expect(page.tasks).toHaveLength(10);
    expect(page.tasks[0]!.rubric.length).toBeGreaterThan(0);
    const text = JSON.stringify(page);
    expect(text).not.toContain('closed-book');
    expect(text).not.toContain('rag@10');
    expect(text).not.toContain('verdicts');
    expect(page.saved).toEqual({});
  });

  it('refuses writes without the token, from another origin, or not JSON; accepts the page’s own', async () => {
    const task = page.tasks[0]!;
    const body = { annotator: 'ann', index: task.index, verdicts: marksOf(task, 0) };
    expect((await post(body, { 'Content-Type': 'application/json', Origin: origin })).status).toBe(403);
    expect((await post(body, { 'Content-Type': 'application/json', Origin: 'http://evil.example', [LABEL_TOKEN_HEADER]: token })).status).toBe(403);
    expect((await post(body, { 'Content-Type': 'application/json', [LABEL_TOKEN_HEADER]: token })).status).toBe(403);
    expect((await post(body, { 'Content-Type': 'application/json', Origin: origin, [LABEL_TOKEN_HEADER]: 'guess' })).status).toBe(403);
    expect((await post(body, { 'Content-Type': 'text/plain', Origin: origin, [LABEL_TOKEN_HEADER]: token })).status).toBe(415);
    expect(await readLabels(run, 'ann')).toEqual([]);
    // The judge's marks stay hidden until the annotator's own are saved.
    expect((await fetch(`${viewer.url}api/runs/run1/judge?index=${task.index}&annotator=ann`)).status).toBe(403);
    const ok = await post(body, { 'Content-Type': 'application/json', Origin: origin, [LABEL_TOKEN_HEADER]: token });
    expect(ok.status).toBe(200);
    const saved = (await ok.json()) as LabelSaved;
    expect(saved.label.score).toBe(0);
    expect(saved.label.source).toBe('viewer');
    expect(saved.judge.verdicts).toEqual(marksOf(task, 1));
    expect((await fetch(`${viewer.url}api/runs/run1/judge?index=${task.index}&annotator=ann`)).status).toBe(200);
    expect(saved.judge.condition).toMatch(/closed-book|rag@10/);
    const [label] = await readLabels(run, 'ann');
    expect(label!.key).toBe(saved.judge.key);
    expect(label!.verdicts).toEqual(marksOf(task, 0));
  });

  it('refuses marks that do not fit the rubric', async () => {
    const task = page.tasks[1]!;
    const response = await post({ annotator: 'ann', index: task.index, verdicts: { 加分项_1: 1 } }, { 'Content-Type': 'application/json', Origin: origin, [LABEL_TOKEN_HEADER]: token });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/加分项_2: missing/);
  });

  it('refuses a body that is not JSON (400) or over 64 KiB (413), writing nothing', async () => {
    const headers = { 'Content-Type': 'application/json', Origin: origin, [LABEL_TOKEN_HEADER]: token };
    const send = (body: string) => fetch(`${viewer.url}api/runs/run1/labels`, { method: 'POST', headers, body });
    const broken = await send('{"annotator": "bad",');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ error: 'not valid JSON' });
    const large = await send(JSON.stringify({ annotator: 'bad', index: 0, note: 'x'.repeat(70 * 1024) }));
    expect(large.status).toBe(413);
    expect(await large.json()).toEqual({ error: 'label too large' });
    expect(await readLabels(run, 'bad')).toEqual([]);
  });

  it('two writers at once lose nothing', async () => {
    const headers = { 'Content-Type': 'application/json', Origin: origin, [LABEL_TOKEN_HEADER]: token };
    const writes = page.tasks.flatMap((task) => [0, 1].map((tab) => post({ annotator: 'two', index: task.index, verdicts: marksOf(task, tab as 0 | 1), note: `tab ${tab}` }, headers)));
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual(writes.map(() => 200));
    const history = await readLabelHistory(run, 'two');
    expect(history).toHaveLength(page.tasks.length * 2);
    expect((await readLabels(run, 'two')).length).toBe(page.tasks.length);
    const reread = (await (await fetch(`${viewer.url}api/runs/run1/labels?annotator=two`)).json()) as LabelPage;
    expect(Object.keys(reread.saved)).toHaveLength(page.tasks.length);
    expect(reread.annotators).toEqual(['ann', 'two']);
  });
});
