import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { CLI, REPO_ROOT, runCli } from '../helpers/runCli.js';

/** Starts `hisrag view …`, resolves with the URL it prints, and the means to stop it. */
function startView(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ url: string; stderr: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'view', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      const match = /hisrag view: (http:\/\/\S+)/.exec(stdout);
      if (match) resolve({ url: match[1]!, stderr: () => stderr, stop: () => (child.kill('SIGINT'), exited) });
    });
    void exited.then((code) => reject(new Error(`hisrag view exited ${code}: ${stderr}`)));
  });
}

describe('hisrag view (the command)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-viewer-cli-'));
    const result = await runCli(['run', demoConfigIn(dir), '--run-id', 'demo', '--no-progress']);
    expect(result.code).toBe(0);
  }, 120_000);

  it('serves the runs of a folder on 127.0.0.1 at a free port, prints its URL, stops on Ctrl-C (exit 130), and keeps its index in the cache folder (HISRAG_VIEW_CACHE), not in the run', async () => {
    // Its own temporary folder, so that what it leaves there can be seen.
    const tmp = join(dir, 'tmp');
    const cache = join(dir, 'view-cache');
    mkdirSync(tmp);
    const runFiles = () => readdirSync(join(dir, 'runs', 'demo')).sort();
    const before = runFiles();
    const view = await startView([join(dir, 'runs')], { TMPDIR: tmp, HISRAG_VIEW_CACHE: cache });
    expect(view.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const runs = (await (await fetch(`${view.url}api/runs`)).json()) as { id: string }[];
    expect(runs.map((r) => r.id)).toEqual(['demo']);
    expect(await (await fetch(view.url)).text()).toContain('<script src="app.js">');
    expect(view.stderr()).toContain(`answers indexed in the background into ${cache}`);
    // The index file is created with the first indexing step, after the run list: stopped once every answer is in.
    while (((await (await fetch(`${view.url}api/indexing`)).json()) as { ready: number }).ready < 1) await new Promise((r) => setTimeout(r, 50));
    expect(await view.stop()).toBe(130);
    expect(readdirSync(tmp).filter((n) => n.startsWith('hisrag-view'))).toEqual([]);
    expect(readdirSync(cache).filter((n) => n.endsWith('.sqlite'))).toHaveLength(1);
    expect(runFiles()).toEqual(before);
  });

  it('says loudly when it binds another address than 127.0.0.1', async () => {
    const view = await startView([join(dir, 'runs'), '--host', '0.0.0.0', '--port', '0', '--cache-dir', join(dir, 'view-cache')]);
    expect(view.stderr()).toMatch(/WARNING: listening on 0\.0\.0\.0: anyone who can reach this machine/);
    await view.stop();
  });

  it('refuses a folder that does not exist, a bad port and a cache folder inside a run directory (exit 2)', async () => {
    expect((await runCli(['view', join(dir, 'nope')])).code).toBe(2);
    expect((await runCli(['view', join(dir, 'runs'), '--port', 'x'])).code).toBe(2);
    const inside = await runCli(['view', join(dir, 'runs'), '--cache-dir', join(dir, 'runs', 'demo', 'cache')]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(/inside a run directory/);
    expect(existsSync(join(dir, 'runs', 'demo', 'cache'))).toBe(false);
  });

  it('--bundle writes a static site: index.html, the client and the data split per run and condition', async () => {
    const out = join(dir, 'bundle');
    const result = await runCli(['view', '--bundle', out, '--cache-dir', join(dir, 'view-cache'), join(dir, 'runs', 'demo')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('bundle: 1 runs, 70 answers');
    for (const file of ['index.html', 'app.js', 'app.css', 'data/runs.js', 'data/r0/run.js', 'data/r0/c0.js', 'data/r0/c4.js', 'data/r0/i0.js']) expect(existsSync(join(out, file)), file).toBe(true);
    // No file holds the whole items.jsonl; every data file is a script a page can load from file://.
    const sizes = readdirSync(join(out, 'data', 'r0')).map((f) => readFileSync(join(out, 'data', 'r0', f), 'utf8'));
    expect(sizes.every((text) => text.startsWith('__hisragData('))).toBe(true);
    expect(Math.max(...sizes.map((t) => t.length))).toBeLessThan(readFileSync(join(dir, 'runs', 'demo', 'items.jsonl'), 'utf8').length / 3);
  });
});
