import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/runCli.js';
import type { RunListEntry } from '../../src/viewer/api.js';
import { writeImageRun, type ImageRun } from './imageRunFixture.js';

/**
 * What the experiment schema and the benchmark registry pull in (every registered component's
 * implementation: LLM clients, Arrow, wiki and Chinese text tools, models, native image code): seconds
 * of import that the viewer's start and its run list must not wait for.
 */
const HEAVY = /node_modules\/(@langchain|langchain|langsmith|openai|apache-arrow|wtf_wikipedia|@node-rs\/jieba|opencc-js|@huggingface|@lancedb|onnxruntime-node|onnxruntime-common|sharp|hnswlib-node|usearch|yaml)\//;
/** The project's own modules that import them: the full config check and the benchmark loaders. */
const HEAVY_OWN = /\/(config\/load|benchmarks\/registry|app\/labelExchange|app\/labelSample|results\/loadRun)\.(ts|js)$/;

/** A `--import` argument that appends every module URL the process resolves to `log` (as test/cli/startup.test.ts). */
function importLogger(log: string): string {
  const hooks = `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
        return result;
      }`)}`;
  return `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
}

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

  for (const fromSource of ['1', '0']) {
    // From dist/ (current: the global setup builds it), the client is the one `npm run build` bundled: esbuild is not run either.
    const heavy = (url: string) => HEAVY.test(url) || HEAVY_OWN.test(url) || (fromSource === '0' && url.includes('/node_modules/esbuild/'));
    it(`from ${fromSource === '1' ? 'the sources' : 'dist/'}: listens and serves the run list before any heavy module is resolved; a bad config is listed as a problem once checked`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'hisrag-view-imports-'));
      const log = join(dir, 'imports.txt');
      writeFileSync(log, '');
      const loaded = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
      const child = spawn(process.execPath, ['--import', importLogger(log), join(REPO_ROOT, 'bin/hisrag.mjs'), 'view', runs, '--cache-dir', join(dir, 'cache')], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, HISRAG_FROM_SOURCE: fromSource },
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const closed = new Promise((resolve) => child.on('close', resolve));
      try {
        // The modules resolved by the time the URL is printed (the hooks write synchronously, before each import runs).
        const atListen = await new Promise<{ url: string; loaded: string[] }>((resolve, reject) => {
          let stdout = '';
          child.stdout.on('data', (d) => {
            stdout += d;
            const match = /hisrag view: (http:\/\/\S+)/.exec(stdout);
            if (match) resolve({ url: match[1]!, loaded: loaded() });
          });
          void closed.then(() => reject(new Error(`hisrag view exited before its URL: ${stderr}`)));
        });
        expect(atListen.loaded.some((url) => /\/viewer\/server\.(ts|js)$/.test(url))).toBe(true);
        expect(atListen.loaded.filter(heavy)).toEqual([]);

        expect(await (await fetch(`${atListen.url}app.js`)).text()).toMatch(/\S{1000}/);
        const list = (await (await fetch(`${atListen.url}api/runs`)).json()) as RunListEntry[];
        const atList = loaded(); // read as soon as the list arrived: the config check waits for a quiet moment after it
        expect(list.map((r) => r.id).sort()).toEqual(['broken-run', 'image-run']);
        expect(list.find((r) => r.id === 'image-run')).toMatchObject({ experiment: 'image-fixture', baseline: 'closed-book', problems: [] });
        expect(atList.filter(heavy)).toEqual([]);

        // In the background, each config is checked against the experiment schema (imported now): the bad one is listed as the run's problem.
        let problems: string[] = [];
        for (let tries = 0; tries < 600 && !problems.length; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const entries = (await (await fetch(`${atListen.url}api/runs`)).json()) as RunListEntry[];
          problems = entries.find((r) => r.id === 'broken-run')!.problems;
        }
        expect(problems.join('\n')).toMatch(/broken-run\/config\.json: invalid experiment config:[\s\S]*bootstrapResamples/);
        const after = (await (await fetch(`${atListen.url}api/runs`)).json()) as RunListEntry[];
        expect(after.find((r) => r.id === 'image-run')!.problems).toEqual([]);
        expect(loaded().some((url) => /\/config\/load\.(ts|js)$/.test(url))).toBe(true);
      } finally {
        child.kill('SIGINT');
        await closed;
        rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);
  }
});
