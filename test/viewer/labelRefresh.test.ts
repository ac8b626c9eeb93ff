import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regenerateReport } from '../../src/app/rewriteReport.js';
import { drawRunLabelSample } from '../../src/app/labelSample.js';
import type { CompareResult, RunDetail } from '../../src/viewer/api.js';
import { LABEL_TOKEN_HEADER, LABEL_TOKEN_META, type LabelPage } from '../../src/viewer/labelApi.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { makeLabelRun } from '../helpers/labelRun.js';

/**
 * A finished run (summary.json written, no labels) open in the viewer; an annotator saves labels on
 * the annotation page. The run page's judge check and the run's summary.json and report.html follow
 * without `hisrag report`: stale (and saying so) only until the viewer has refreshed them.
 */
describe('hisrag view: a label saved shows on the run page, in summary.json and in report.html', () => {
  let run: string;
  let viewer: ViewerServer;
  let headers: Record<string, string>;
  let page: LabelPage;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'label-refresh-view-'));
    const conditions = ['closed-book', 'rag@10'];
    run = makeLabelRun(join(root, 'run1'), conditions);
    writeFileSync(join(run, 'manifest.json'), JSON.stringify({ runId: 'run1', experiment: 'demo', models: ['m'], conditions, complete: true }));
    await regenerateReport(run);
    await drawRunLabelSample(run, { size: 3, seed: 1 });
    viewer = await startViewer([root], { cacheDir: join(root, 'cache') });
    const html = await (await fetch(viewer.url)).text();
    const token = new RegExp(`<meta name="${LABEL_TOKEN_META}" content="([^"]+)">`).exec(html)![1]!;
    headers = { 'Content-Type': 'application/json', Origin: new URL(viewer.url).origin, [LABEL_TOKEN_HEADER]: token };
    page = (await (await fetch(`${viewer.url}api/runs/run1/labels?annotator=li`)).json()) as LabelPage;
  }, 120_000);
  afterAll(async () => viewer?.close());

  const detail = async () => (await (await fetch(`${viewer.url}api/runs/run1`)).json()) as RunDetail;

  it('before any label: no judge check, nothing stale', async () => {
    const d = await detail();
    expect(d.judgeCheck).toBeUndefined();
    expect(d.labelsStale).toBeUndefined();
  });

  it('after the saves: the judge check with its corrected Δ, the same in summary.json, report.html rewritten; stale only meanwhile', async () => {
    // Every bonus item hit, no deduction, on every answer of the sample.
    for (const task of page.tasks) {
      const verdicts = Object.fromEntries(task.rubric.map((r) => [r.key, r.half === 'bonus' ? 1 : 0]));
      const saved = await fetch(`${viewer.url}api/runs/run1/labels`, { method: 'POST', headers, body: JSON.stringify({ annotator: 'li', index: task.index, verdicts }) });
      expect(saved.status).toBe(200);
    }
    const seen: RunDetail[] = [];
    const deadline = Date.now() + 90_000;
    let d = await detail();
    while (!(d.judgeCheck && !d.labelsStale) && Date.now() < deadline) {
      seen.push(d);
      // While stale, the page is told so, and why, and that it is being refreshed.
      if (d.labelsStale) expect(d.labelsStale).toMatchObject({ refreshing: true, note: expect.stringMatching(/being refreshed.*hisrag report/) });
      await new Promise((resolve) => setTimeout(resolve, 250));
      d = await detail();
    }
    expect(d.labelsStale).toBeUndefined();
    const check = d.judgeCheck!;
    expect(check.annotators).toEqual(['li']);
    expect(check.labelledAnswers).toBe(page.tasks.length);
    expect(check.differences.map((x) => [x.condition, x.labelled])).toEqual([['rag@10', page.tasks.length / 2]]);
    // Both sides labelled alike: the labels-only Δ is 0 whatever the rubric's score of the marks.
    expect(check.differences[0]!.labelsOnly.estimate).toBe(0);
    const summary = JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8'));
    expect(summary.judgeCheck).toEqual(check);
    const report = readFileSync(join(run, 'report.html'), 'utf8');
    expect(report).toContain('id="judge-check"');
    expect(report).toContain('Δ corrected with labels (PPI++)');
    // Compare, B against its baseline in the same run: the corrected Δ of the same judge check beside the judge-only one.
    const compared = (await (await fetch(`${viewer.url}api/compare?${new URLSearchParams({ ar: 'run1', am: 'm', ac: 'closed-book', br: 'run1', bm: 'm', bc: 'rag@10' })}`)).json()) as CompareResult;
    expect(compared.corrected!.difference).toEqual(check.differences[0]);
    expect(compared.corrected!.basis).toEqual([`Corrected figures from a person's labels: ${page.tasks.length} answers labelled by li.`]);
    expect(compared.corrected!.stale).toBeNull();
  }, 120_000);
});
