import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLogger } from '../helpers/importLogger.js';
import { REPO_ROOT } from '../helpers/runCli.js';

/**
 * bin/hisrag.mjs runs dist/ only when it was built from the sources as they are: a package folder
 * with the real bin/ and build script and a one-file src/ whose main says where it was loaded from.
 */
describe('the CLI entry: compiled code only when current', () => {
  let root: string;
  const node = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  const loadedFrom = () => {
    const result = node(['bin/hisrag.mjs']);
    expect(result.stderr).toBe('');
    return result.stdout.trim();
  };
  const writeMain = (word: string) =>
    writeFileSync(join(root, 'src/cli/main.ts'), `export async function main(): Promise<number> {\n  console.log('${word}', import.meta.url.endsWith('.ts') ? 'source' : 'dist');\n  return 0;\n}\n`);
  const build = () => expect(node(['scripts/build.mjs']).status).toBe(0);

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-startup-'));
    for (const file of ['bin/hisrag.mjs', 'bin/sourceStamp.mjs', 'bin/sourceGuard.mjs', 'scripts/build.mjs']) cpSync(join(REPO_ROOT, file), join(root, file));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'fixture', type: 'module' }));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
    mkdirSync(join(root, 'src/cli'), { recursive: true });
    writeMain('one');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs the sources without a build, dist/ once built, and the sources again after any change', () => {
    expect(loadedFrom()).toBe('one source');
    build();
    expect(loadedFrom()).toBe('one dist');
    writeMain('two'); // edited
    expect(loadedFrom()).toBe('two source');
    build();
    expect(loadedFrom()).toBe('two dist');
    writeFileSync(join(root, 'src/extra.ts'), 'export const x = 1;\n'); // added
    expect(loadedFrom()).toBe('two source');
    build();
    expect(loadedFrom()).toBe('two dist');
    rmSync(join(root, 'src/extra.ts')); // removed
    expect(loadedFrom()).toBe('two source');
    build();
    // Same size, other content, an older time (a checkout of another commit): still detected.
    writeMain('six');
    utimesSync(join(root, 'src/cli/main.ts'), new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(loadedFrom()).toBe('six source');
    build();
    expect(loadedFrom()).toBe('six dist');
    expect(node(['bin/hisrag.mjs'], { HISRAG_FROM_SOURCE: '1' }).stdout.trim()).toBe('six source');
  }, 60_000);

  it("the library's compiled entry refuses to load when the sources changed since the build", () => {
    writeFileSync(join(root, 'src/library.ts'), 'export const answer: number = 42;\n');
    build();
    const load = () => node(['--input-type=module', '-e', "import('./dist/index.js').then((m) => console.log(m.answer))"]);
    expect(load().stdout.trim()).toBe('42');
    writeFileSync(join(root, 'src/library.ts'), 'export const answer: number = 43;\n');
    const stale = load();
    expect(stale.status).not.toBe(0);
    expect(stale.stderr).toMatch(/built from other sources than src\/ holds now; run `npm run build`/);
    build();
    expect(load().stdout.trim()).toBe('43');
  }, 60_000);
});

/** Packages that take a noticeable share of a second to import. */
const HEAVY = /node_modules\/(@langchain|langchain|@huggingface|@lancedb|sharp|onnxruntime-node|zod|yaml|openai|better-sqlite3|hnswlib-node|usearch)\//;

/** Every command imports what it uses when it runs: `--help` loads no model, index, LLM or schema library. */
describe('hisrag --help loads only the command definitions', () => {
  it('resolves no heavy package', () => {
    const log = join(mkdtempSync(join(tmpdir(), 'hisrag-imports-')), 'imports.txt');
    const register = importLogger(log);
    for (const fromSource of ['1', '0']) {
      writeFileSync(log, '');
      const result = spawnSync(process.execPath, ['--import', register, join(REPO_ROOT, 'bin/hisrag.mjs'), '--help'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, HISRAG_FROM_SOURCE: fromSource },
      });
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/Usage: hisrag/);
      const loaded = spawnSync('cat', [log], { encoding: 'utf8' }).stdout.split('\n');
      expect(loaded.some((url) => url.includes('/commander/'))).toBe(true);
      const heavy = loaded.filter((url) => HEAVY.test(url));
      expect(heavy).toEqual([]);
    }
  }, 60_000);
});

/** `hisrag run`'s first line is printed before the config is checked: it waits on no heavy import. */
describe('hisrag run answers at once', () => {
  it('prints its first line before resolving any heavy package, then checks the config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-first-line-'));
    const log = join(dir, 'imports.txt');
    writeFileSync(log, '');
    const child = spawn(process.execPath, ['--import', importLogger(log), join(REPO_ROOT, 'bin/hisrag.mjs'), 'run', 'experiments/demo.yaml', '--set', `output=${join(dir, 'runs')}`, '--no-progress'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const firstLine = await new Promise<{ line: string; loaded: string[] }>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        // The modules resolved by the time the line arrived (the hooks write synchronously, before each import runs).
        if (stdout.includes('\n')) resolve({ line: stdout.split('\n')[0]!, loaded: readFileSync(log, 'utf8').split('\n') });
      });
      child.on('close', (code) => reject(new Error(`hisrag run exited ${code} before a line: ${stdout}`)));
    });
    child.kill('SIGINT');
    await new Promise((resolve) => child.on('close', resolve));
    expect(firstLine.line).toBe('hisrag run: checking experiments/demo.yaml');
    expect(firstLine.loaded.some((url) => url.includes('/commander/'))).toBe(true);
    expect(firstLine.loaded.filter((url) => HEAVY.test(url))).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
