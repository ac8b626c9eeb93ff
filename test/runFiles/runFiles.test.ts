// Run files (summary.json, manifest.json, plan.json) are versioned and validated on read: a damaged
// or hand-edited file is an error naming the file and the field (exit 2 in the CLI, a message on the
// viewer's run page), and runs written before versions still open with the figures they had.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataFileError } from '../../src/errors.js';
import { readRunManifest } from '../../src/runFiles/manifest.js';
import { readRunPlan } from '../../src/runFiles/plan.js';
import type { RunSummary } from '../../src/runFiles/summary.js';
import { readRunSummaryFile } from '../../src/runFiles/summaryFile.js';
import type { RunDetail } from '../../src/viewer/api.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { runCli } from '../helpers/runCli.js';

/** `hisrag run experiments/demo-samples.yaml` as written before run files had versions (texts cut; test/data/old-run-demo-samples/README.md). */
const OLD_RUN = join(import.meta.dirname, '..', 'data', 'old-run-demo-samples');
const oldSummary = JSON.parse(readFileSync(join(OLD_RUN, 'summary.json'), 'utf8')) as RunSummary & { version?: number };

function unpackOldRun(into: string): string {
  mkdirSync(into, { recursive: true });
  writeFileSync(join(into, 'items.jsonl'), gunzipSync(readFileSync(join(OLD_RUN, 'items.jsonl.gz'))));
  for (const name of ['config.json', 'manifest.json', 'plan.json', 'summary.json']) copyFileSync(join(OLD_RUN, name), join(into, name));
  return into;
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
const means = (cells: { model: string; condition: string; score: { n: number; mean: number | null } }[]) =>
  cells.map((c) => `${c.model} ${c.condition} n=${c.score.n} mean=${c.score.mean}`);

describe('run files written before versions', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-old-run-'));
  });

  it('the fixture is an old run: no version in its files', () => {
    expect(oldSummary.version).toBeUndefined();
    expect(readJson(join(OLD_RUN, 'manifest.json')).version).toBeUndefined();
    expect(readJson(join(OLD_RUN, 'plan.json')).version).toBeUndefined();
  });

  it('hisrag report opens it with the figures it had and writes summary.json at the current version', async () => {
    const run = unpackOldRun(join(dir, 'reported'));
    const result = await runCli(['report', '--quiet', run]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const written = readJson(join(run, 'summary.json')) as RunSummary & { version: number };
    expect(written.version).toBe(1);
    expect(means(written.cells)).toEqual(means(oldSummary.cells));
    expect(written.paired.map((p) => [p.condition, p.n, p.meanDiff])).toEqual(oldSummary.paired.map((p) => [p.condition, p.n, p.meanDiff]));
    // The manifest and plan are read, not rewritten: still the old version.
    expect((await readRunManifest(run)).version).toBe(0);
    expect((await readRunPlan(run))?.cells.length).toBe((readJson(join(OLD_RUN, 'plan.json')).cells as unknown[]).length);
  });

  it('hisrag compare reads old and current summaries side by side with the same means', async () => {
    const old = unpackOldRun(join(dir, 'old'));
    const current = join(dir, 'reported');
    const result = await runCli(['compare', '--json', old, current]);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { model: string; condition: string; a: { mean: number; n: number }; b: { mean: number; n: number } }[];
    expect(rows.map((r) => `${r.model} ${r.condition} n=${r.a.n} mean=${r.a.mean}`)).toEqual(means(oldSummary.cells));
    expect(rows.every((r) => r.a.mean === r.b.mean)).toBe(true);
  });

  describe('in the viewer', () => {
    let viewer: ViewerServer;
    beforeAll(async () => {
      const runs = join(dir, 'viewed');
      unpackOldRun(join(runs, 'old-run'));
      viewer = await startViewer([runs], { cacheDir: join(dir, 'cache') });
    });
    afterAll(async () => viewer?.close());

    it('shows the run with its figures and no problem', async () => {
      const response = await fetch(new URL('/api/runs/old-run', viewer.url));
      expect(response.status).toBe(200);
      const detail = (await response.json()) as RunDetail;
      expect(detail.run.problems).toEqual([]);
      expect(detail.run.experiment).toBe('demo-samples');
      expect(detail.run.status).toBe('done');
      expect(means(detail.cells)).toEqual(means(oldSummary.cells));
    });
  });
});

describe('damaged or hand-edited run files', () => {
  let dir: string;
  let good: string;
  const damaged = (name: string, edit: (run: string) => void): string => {
    const run = unpackOldRun(join(dir, name));
    // Files at the current version, as a run writes them from now on.
    const summary = readJson(join(run, 'summary.json'));
    writeFileSync(join(run, 'summary.json'), JSON.stringify({ version: 1, ...summary }, null, 2));
    const manifest = readJson(join(run, 'manifest.json'));
    writeFileSync(join(run, 'manifest.json'), JSON.stringify({ version: 1, ...manifest }, null, 2));
    edit(run);
    return run;
  };
  const editJson = (file: string, change: (value: Record<string, any>) => void) => {
    const value = readJson(file);
    change(value);
    writeFileSync(file, JSON.stringify(value, null, 2));
  };
  const truncate = (file: string) => writeFileSync(file, readFileSync(file, 'utf8').slice(0, 400));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-damaged-run-'));
    good = damaged('good', () => {});
  });

  it('current-version files as the runner writes them are read', async () => {
    expect((await readRunManifest(good)).version).toBe(1);
    expect(means((await readRunSummaryFile(good))!.cells)).toEqual(means(oldSummary.cells));
  });

  it('hisrag compare: a wrong-typed field in summary.json exits 2 naming the file and the field', async () => {
    const run = damaged('wrong-type', (r) => editJson(join(r, 'summary.json'), (s) => (s.cells[2].score.mean = 'high')));
    const result = await runCli(['compare', good, run]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(run, 'summary.json')}: cells[2].score.mean: `);
    expect(result.stderr).toMatch(/expected number/);
  });

  it('hisrag compare: a misspelled field in summary.json exits 2 naming it', async () => {
    const run = damaged('misspelled', (r) => editJson(join(r, 'summary.json'), (s) => (s.cells[0].scroe = s.cells[0].score)));
    const result = await runCli(['compare', run, good]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(run, 'summary.json')}: cells[0].scroe: unknown field`);
  });

  it('hisrag compare: a truncated summary.json exits 2 naming the file', async () => {
    const run = damaged('truncated-summary', (r) => truncate(join(r, 'summary.json')));
    const result = await runCli(['compare', good, run]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(run, 'summary.json')}: not valid JSON`);
  });

  it('hisrag report: a truncated or edited manifest.json exits 2 naming the file and the field', async () => {
    const truncated = damaged('truncated-manifest', (r) => truncate(join(r, 'manifest.json')));
    let result = await runCli(['report', truncated]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(truncated, 'manifest.json')}: not valid JSON`);
    const edited = damaged('edited-manifest', (r) => editJson(join(r, 'manifest.json'), (m) => (m.complete = 'yes')));
    result = await runCli(['report', edited]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(edited, 'manifest.json')}: complete: `);
  });

  it('a newer version is refused by name; an old file keeps fields a later version dropped', async () => {
    const newer = damaged('newer', (r) => editJson(join(r, 'summary.json'), (s) => (s.version = 7)));
    await expect(readRunSummaryFile(newer)).rejects.toThrow(/summary\.json: version 7 was written by a newer hisrag; this one reads versions up to 1/);
    const old = unpackOldRun(join(dir, 'old-with-extra'));
    editJson(join(old, 'summary.json'), (s) => (s.cells[0].retiredFigure = 3));
    const summary = await readRunSummaryFile(old);
    expect(summary!.cells[0]).not.toHaveProperty('retiredFigure');
    editJson(join(old, 'summary.json'), (s) => (s.cells[0].items = 'many'));
    await expect(readRunSummaryFile(old)).rejects.toThrow(/summary\.json: cells\[0\]\.items: /);
  });

  it('plan.json: an edited figure is an error naming the file and field', async () => {
    const run = damaged('edited-plan', (r) => editJson(join(r, 'plan.json'), (p) => (p.cells[1].answers = -3)));
    const error = await readRunPlan(run).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toContain(`${join(run, 'plan.json')}: cells[1].answers: `);
  });

  describe('in the viewer', () => {
    let viewer: ViewerServer;
    let runs: string;
    beforeAll(async () => {
      runs = join(dir, 'viewed');
      mkdirSync(runs);
      unpackOldRun(join(runs, 'broken'));
      truncate(join(runs, 'broken', 'summary.json'));
      editJson(join(runs, 'broken', 'manifest.json'), (m) => (m.sessions = 'twice'));
      viewer = await startViewer([runs], { cacheDir: join(dir, 'cache') });
    });
    afterAll(async () => viewer?.close());

    it('the run page names each damaged file and field, and shows what the answers give', async () => {
      const response = await fetch(new URL('/api/runs/broken', viewer.url));
      expect(response.status).toBe(200);
      let detail = (await response.json()) as RunDetail;
      expect(detail.run.problems).toEqual([
        expect.stringContaining(`${join(runs, 'broken', 'manifest.json')}: sessions: `),
        expect.stringContaining(`${join(runs, 'broken', 'summary.json')}: not valid JSON`),
      ]);
      // Once the answers are indexed, the figures are computed from them.
      await viewer.store.whenIndexed('broken');
      detail = (await (await fetch(new URL('/api/runs/broken', viewer.url))).json()) as RunDetail;
      expect(means(detail.cells).sort()).toEqual(means(oldSummary.cells).sort());
      const list = (await (await fetch(new URL('/api/runs', viewer.url))).json()) as { id: string; problems: string[] }[];
      expect(list.find((r) => r.id === 'broken')!.problems).toHaveLength(2);
    });
  });
});
