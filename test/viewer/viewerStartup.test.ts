import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/runCli.js';
import type { RunListEntry } from '../../src/viewer/api.js';
import { RunStore } from '../../src/viewer/runStore.js';
import { writeImageRun, type ImageRun } from './imageRunFixture.js';
import { importLogger } from '../helpers/importLogger.js';

/**
 * What the experiment schema and the benchmark registry pull in (every registered component's
 * implementation: LLM clients, Arrow, wiki and Chinese text tools, models, native image code): seconds
 * of import that the viewer's start and its run list must not wait for.
 */
const HEAVY = /node_modules\/(@langchain|langchain|langsmith|openai|apache-arrow|wtf_wikipedia|@node-rs\/jieba|opencc-js|@huggingface|@lancedb|onnxruntime-node|onnxruntime-common|sharp|hnswlib-node|usearch|yaml)\//;
/** The project's own modules that import them: the full config check and the benchmark loaders. */
const HEAVY_OWN = /\/(config\/load|benchmarks\/registry|app\/labelExchange|app\/labelSample|results\/loadRun)\.(ts|js)$/;

describe('hisrag view starts and lists the runs without the experiment schema', () => {
  let fixture: ImageRun;
  let runs: string;
  beforeAll(async () => {
    fixture = await writeImageRun({ withImages: false });
    runs = join(fixture.root, 'runs');
    // A second run whose config.json fails the experiment schema's check (a hand edit).
    const broken = join(runs, 'broken-run');
    cpSync(fixture.runDir, broken, { recursive: true });
    const config = JSON.parse(readFileSync(join(fixture.runDir, 'config.json'), 'utf8'));
    writeFileSync(join(broken, 'config.json'), JSON.stringify({ ...config, scoring: { ...config.scoring, bootstrapResamples: 'many' } }));
  });
  afterAll(() => rmSync(fixture.root, { recursive: true, force: true }));

  /** `hisrag view <runs>` with every module it resolves logged: its URL, what it had resolved when it printed it, and the means to stop it. */
  async function startLoggedView(cacheDir: string, fromSource: string) {
    const log = join(cacheDir, `imports-${Date.now()}.txt`);
    writeFileSync(log, '');
    const loaded = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const child = spawn(process.execPath, ['--import', importLogger(log), join(REPO_ROOT, 'bin/hisrag.mjs'), 'view', runs, '--cache-dir', join(cacheDir, 'cache')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HISRAG_FROM_SOURCE: fromSource },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise((resolve) => child.on('close', resolve));
    const stop = async () => {
      child.kill('SIGINT');
      await closed;
    };
    try {
      // The modules resolved by the time the URL is printed (the hooks write synchronously, before each import runs).
      const atListen = await new Promise<{ url: string; resolvedAtListen: string[] }>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (d) => {
          stdout += d;
          const match = /hisrag view: (http:\/\/\S+)/.exec(stdout);
          if (match) resolve({ url: match[1]!, resolvedAtListen: loaded() });
        });
        void closed.then(() => reject(new Error(`hisrag view exited before its URL: ${stderr}`)));
      });
      return { ...atListen, loaded, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  }
  const listOf = async (url: string) => (await (await fetch(`${url}api/runs`)).json()) as RunListEntry[];
  /** Asks for the run list every 100 ms until `done` holds of it (at most a minute). */
  async function listUntil(url: string, done: (list: RunListEntry[]) => boolean): Promise<RunListEntry[]> {
    let list = await listOf(url);
    for (let tries = 0; tries < 600 && !done(list); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      list = await listOf(url);
    }
    return list;
  }

  for (const fromSource of ['1', '0']) {
    // From dist/ (current: the global setup builds it), the client is the one `npm run build` bundled: esbuild is not run either.
    const heavy = (url: string) => HEAVY.test(url) || HEAVY_OWN.test(url) || (fromSource === '0' && url.includes('/node_modules/esbuild/'));
    it(`from ${fromSource === '1' ? 'the sources' : 'dist/'}: listens and serves the run list before any heavy module is resolved, cold and on a later start; configs checked and summaries computed in the background`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'hisrag-view-imports-'));
      try {
        const view = await startLoggedView(dir, fromSource);
        try {
          expect(view.resolvedAtListen.some((url) => /\/viewer\/server\.(ts|js)$/.test(url))).toBe(true);
          expect(view.resolvedAtListen.filter(heavy)).toEqual([]);
          expect(await (await fetch(`${view.url}app.js`)).text()).toMatch(/\S{1000}/);
          const list = await listOf(view.url);
          const atList = view.loaded(); // read as soon as the list arrived: the config check waits for a quiet moment after it
          expect(list.map((r) => r.id).sort()).toEqual(['broken-run', 'image-run']);
          expect(list.find((r) => r.id === 'image-run')).toMatchObject({ experiment: 'image-fixture', baseline: 'closed-book', problems: [] });
          expect(atList.filter(heavy)).toEqual([]);

          // In the background, each config is checked against the experiment schema (imported now): the bad one is listed as the run's problem.
          const after = await listUntil(view.url, (l) => l.find((r) => r.id === 'broken-run')!.problems.length > 0);
          expect(after.find((r) => r.id === 'broken-run')!.problems.join('\n')).toMatch(/broken-run\/config\.json: invalid experiment config:[\s\S]*bootstrapResamples/);
          expect(after.find((r) => r.id === 'image-run')!.problems).toEqual([]);
          expect(view.loaded().some((url) => /\/config\/load\.(ts|js)$/.test(url))).toBe(true);
          await listUntil(view.url, (l) => l.every((r) => r.index?.state === 'ready'));
        } finally {
          await view.stop();
        }

        // A later start on the same cache: the answers are indexed already, the list as light; the summary of the run
        // without a summary.json of its own is computed in the background, without its page being asked for.
        const later = await startLoggedView(dir, fromSource);
        try {
          expect(later.resolvedAtListen.filter(heavy)).toEqual([]);
          const list = await listOf(later.url);
          expect(later.loaded().filter(heavy)).toEqual([]);
          expect(list.find((r) => r.id === 'image-run')).toMatchObject({ index: { state: 'ready' }, best: null });
          const summarised = await listUntil(later.url, (l) => l.find((r) => r.id === 'image-run')!.best !== null);
          expect(summarised.find((r) => r.id === 'image-run')!.best).toMatchObject({ model: 'm' });
          expect(summarised.find((r) => r.id === 'broken-run')).toMatchObject({ best: null, problems: [expect.stringMatching(/invalid experiment config/)] });
        } finally {
          await later.stop();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  }

  it('in the background, checks every config: a bad one is listed as the run\'s problem, the run still served, without a summary', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'hisrag-view-check-'));
    try {
      const first = new RunStore([runs], { cacheDir });
      await first.scan(true);
      await first.whenAllIndexed();
      first.close();
      // A later start: the answers are indexed already; neither run has a summary.json of its own.
      const store = new RunStore([runs], { cacheDir });
      try {
        await store.scan(true);
        const before = await store.list();
        expect(before.map((r) => [r.id, r.index?.state, r.best, r.problems])).toEqual([
          ['broken-run', 'ready', null, []],
          ['image-run', 'ready', null, []],
        ]);
        await store.whenAllIndexed();
        const after = await store.list();
        const broken = after.find((r) => r.id === 'broken-run')!;
        expect(broken.problems.join('\n')).toMatch(/invalid experiment config:[\s\S]*bootstrapResamples/);
        expect(broken.best).toBeNull(); // no summary without a config that passes the check
        expect((await store.run('broken-run'))!.cells).toEqual([]);
        const good = after.find((r) => r.id === 'image-run')!;
        expect(good.problems).toEqual([]);
        expect(good.best).not.toBeNull();
        expect(store.skipped.size).toBe(0);
      } finally {
        store.close();
      }
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }, 120_000);
});
