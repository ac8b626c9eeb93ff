import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import type { AnswerPage, IndexingStatus, RunDetail, RunListEntry } from '../../src/viewer/api.js';
import { parseSize, VIEW_CACHE_ENV, viewCacheDir } from '../../src/viewer/cacheDir.js';
import { cacheEntries } from '../../src/viewer/cacheMaintenance.js';
import { RunStore } from '../../src/viewer/runStore.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli } from '../helpers/runCli.js';

/** Every file under a folder with its size and mtime: what "never written" is checked against. */
function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((name) => {
      const st = statSync(join(dir, name));
      return `${name} ${st.size} ${st.mtimeMs} ${st.ino}`;
    })
    .join('\n');
}

describe('hisrag view: answers indexed in the background into a cache kept between starts', () => {
  let dir: string;
  let demo: string;
  let lines: string[];
  let viewer: ViewerServer | null = null;
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(new URL(path, viewer!.url));
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };
  /** A folder of runs holding a copy of the demo run (mtimes kept: its summary.json is newer than its items.jsonl, as the runner leaves them). */
  const runsWithDemo = (name: string, id = 'demo') => {
    const runs = join(dir, name);
    mkdirSync(runs, { recursive: true });
    cpSync(demo, join(runs, id), { recursive: true, preserveTimestamps: true });
    return runs;
  };
  const start = async (runs: string, cacheDir: string) => {
    viewer = await startViewer([runs], { cacheDir });
    return viewer;
  };
  afterEach(async () => {
    await viewer?.close();
    viewer = null;
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-viewer-cache-'));
    const result = await runCli(['run', demoConfigIn(dir), '--run-id', 'demo', '--no-progress']);
    expect(result.code, result.stderr).toBe(0);
    demo = join(dir, 'runs', 'demo');
    lines = readFileSync(join(demo, 'items.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(70);
  }, 120_000);

  it('lists a run and its conditions from its summary before any answer is indexed; search works once indexed; a second start indexes nothing', async () => {
    const runs = runsWithDemo('first');
    const cacheDir = join(dir, 'cache-first');
    const before = snapshot(runs);
    const summary = JSON.parse(readFileSync(join(demo, 'summary.json'), 'utf8')) as { cells: { condition: string; score: { mean: number } }[] };
    const best = [...summary.cells].sort((a, b) => b.score.mean - a.score.mean)[0]!;

    // Listing a run met for the first time creates no index file (it comes with the first indexing step).
    const listing = new RunStore([runs], { cacheDir });
    expect((await listing.list()).map((r) => [r.id, r.answers, r.index?.answers])).toEqual([['demo', 70, 0]]);
    listing.close();
    expect(existsSync(cacheDir) ? readdirSync(cacheDir).filter((n) => n.includes('.sqlite')) : []).toEqual([]);

    await start(runs, cacheDir);
    // The run list is served first: nothing is indexed yet, and the list has what the run summarised.
    const [entry] = await get<RunListEntry[]>('api/runs');
    expect(entry!.index).toEqual({ state: 'indexing', bytes: 0, totalBytes: statSync(join(demo, 'items.jsonl')).size, answers: 0 });
    expect(entry).toMatchObject({ id: 'demo', status: 'done', answers: 70, items: 14, best: { condition: best.condition, mean: best.score.mean } });
    const detail = await get<RunDetail>('api/runs/demo');
    expect(detail.cells.map((c) => c.condition)).toEqual(summary.cells.map((c) => c.condition));
    expect(detail.groupKeys).toContain('category');

    // Answers asked for while indexing: no rows but the progress (and the run is indexed next).
    const early = await get<AnswerPage>('api/runs/demo/answers?model=extractive-baseline&condition=closed-book');
    if (early.indexing) expect(early.rows).toEqual([]);
    await viewer!.store.whenAllIndexed();
    const search = await get<AnswerPage>(`api/runs/demo/answers?model=extractive-baseline&condition=closed-book&q=${encodeURIComponent('商辂')}`);
    expect(search.indexing).toBeUndefined();
    expect(search.rows.map((r) => r.itemId)).toContain('demo-prohist-001');
    const status = await get<IndexingStatus>('api/indexing');
    expect(status).toMatchObject({ cacheDir, runs: 1, ready: 1, indexed: { lines: 70, bytes: statSync(join(demo, 'items.jsonl')).size, rebuilds: 0, extended: 0 } });
    expect((await get<RunListEntry[]>('api/runs'))[0]!.index!.state).toBe('ready');
    await viewer!.close();
    viewer = null;
    // The index is in the cache folder, outside the run; the run directory is as it was.
    const cacheFiles = readdirSync(cacheDir).filter((n) => n.endsWith('.sqlite'));
    expect(cacheFiles).toHaveLength(1);
    expect(snapshot(runs)).toBe(before);
    // The search index (each condition's texts packed together) was built once the answers were in,
    // and a search's query (as the server writes it) reads it: the count from it alone.
    const db = new Database(join(cacheDir, cacheFiles[0]!), { readonly: true });
    try {
      expect(db.pragma('page_size', { simple: true })).toBe(8192);
      const plan = db
        .prepare("EXPLAIN QUERY PLAN SELECT a.key FROM answers a INDEXED BY answers_search WHERE a.model = 'm' AND a.condition = 'c' AND instr(a.haystack, 'x') > 0 ORDER BY a.itemKey LIMIT 100")
        .all() as { detail: string }[];
      expect(plan.map((p) => p.detail).join(' | ')).toMatch(/USING INDEX answers_search/);
      const count = db.prepare("EXPLAIN QUERY PLAN SELECT COUNT(*) FROM answers a INDEXED BY answers_search WHERE a.model = 'm' AND a.condition = 'c' AND instr(a.haystack, 'x') > 0").all() as { detail: string }[];
      expect(count.map((p) => p.detail).join(' | ')).toMatch(/USING COVERING INDEX answers_search/);
    } finally {
      db.close();
    }

    // Second start, nothing changed: ready at once, nothing read into the index.
    await start(runs, cacheDir);
    const [again] = await get<RunListEntry[]>('api/runs');
    expect(again!.index).toMatchObject({ state: 'ready', answers: 70 });
    const page = await get<AnswerPage>(`api/runs/demo/answers?model=extractive-baseline&condition=closed-book&q=${encodeURIComponent('商辂')}`);
    expect(page.rows.map((r) => r.key)).toEqual(search.rows.map((r) => r.key));
    await new Promise((r) => setTimeout(r, 200));
    expect((await get<IndexingStatus>('api/indexing')).indexed).toEqual({ lines: 0, bytes: 0, rebuilds: 0, extended: 0 });
    await viewer!.close();
    viewer = null;
    expect(snapshot(runs)).toBe(before);
  });

  it('indexes only the lines appended since the last start, and starts over when items.jsonl was truncated, rewritten or replaced', async () => {
    const runs = join(dir, 'live');
    const run = join(runs, 'live');
    mkdirSync(run, { recursive: true });
    cpSync(join(demo, 'config.json'), join(run, 'config.json'));
    const manifest = JSON.parse(readFileSync(join(demo, 'manifest.json'), 'utf8'));
    writeFileSync(join(run, 'manifest.json'), JSON.stringify({ ...manifest, complete: false, finishedAt: null, answers: { ...manifest.answers, done: 40 } }));
    const items = join(run, 'items.jsonl');
    writeFileSync(items, lines.slice(0, 40).join('\n') + '\n');
    const cacheDir = join(dir, 'cache-live');
    const indexed = async () => {
      await viewer!.store.whenAllIndexed();
      return (await get<IndexingStatus>('api/indexing')).indexed;
    };
    const answers = async () => (await get<RunListEntry[]>('api/runs'))[0]!.answers;

    await start(runs, cacheDir);
    expect(await indexed()).toEqual({ lines: 40, bytes: statSync(items).size, rebuilds: 0, extended: 0 });
    expect(await answers()).toBe(40);
    await viewer!.close();

    // Appended while no viewer ran: the next start reads only the new bytes.
    const sizeBefore = statSync(items).size;
    appendFileSync(items, lines.slice(40, 70).join('\n') + '\n');
    await start(runs, cacheDir);
    expect(await indexed()).toEqual({ lines: 30, bytes: statSync(items).size - sizeBefore, rebuilds: 0, extended: 1 });
    expect(await answers()).toBe(70);
    // Appended while it runs (a run in progress): the next request reads them, and only them.
    writeFileSync(items, lines.slice(0, 40).join('\n') + '\n' + lines.slice(40, 70).join('\n') + '\n' + lines.slice(0, 5).join('\n') + '\n');
    expect(await answers()).toBe(70); // the same 5 answers again (a record replaced by its key)
    expect(await indexed()).toMatchObject({ lines: 35, rebuilds: 0 });
    await viewer!.close();

    // Truncated (a resume that cut the file): started over.
    writeFileSync(items, lines.slice(0, 20).join('\n') + '\n');
    await start(runs, cacheDir);
    expect(await indexed()).toMatchObject({ lines: 20, rebuilds: 1 });
    expect(await answers()).toBe(20);
    await viewer!.close();

    // Rewritten in place with other answers, longer than what was indexed: its bytes before the old end differ, so started over.
    writeFileSync(items, lines.slice(30, 70).join('\n') + '\n');
    await start(runs, cacheDir);
    expect(await indexed()).toMatchObject({ lines: 40, rebuilds: 1 });
    const keys = (await get<AnswerPage>('api/runs/live/answers?model=extractive-baseline&condition=closed-book&limit=100')).rows.map((r) => r.key);
    const expected = lines.slice(30, 70).map((l) => JSON.parse(l) as { key: string; condition: string }).filter((r) => r.condition === 'closed-book').map((r) => r.key).sort();
    expect([...keys].sort()).toEqual(expected);
    await viewer!.close();

    // Replaced by another file (another inode): started over.
    writeFileSync(`${items}.new`, lines.slice(30, 70).join('\n') + '\n');
    renameSync(`${items}.new`, items);
    await start(runs, cacheDir);
    expect(await indexed()).toMatchObject({ lines: 40, rebuilds: 1 });
    expect(await answers()).toBe(40);
  });

  it('keeps its cache outside the run directories: HISRAG_VIEW_CACHE or --cache-dir, and a cache folder inside a run directory is refused', async () => {
    const runs = runsWithDemo('placement');
    const before = snapshot(runs);
    const previous = process.env[VIEW_CACHE_ENV];
    try {
      process.env[VIEW_CACHE_ENV] = join(dir, 'from-env');
      expect(viewCacheDir()).toBe(join(dir, 'from-env'));
      expect(viewCacheDir(join(dir, 'option'))).toBe(join(dir, 'option'));
      delete process.env[VIEW_CACHE_ENV];
      expect(viewCacheDir()).toBe(join(process.cwd(), '.cache', 'viewer'));
    } finally {
      if (previous === undefined) delete process.env[VIEW_CACHE_ENV];
      else process.env[VIEW_CACHE_ENV] = previous;
    }
    expect(() => new RunStore([join(runs, 'demo')], { cacheDir: join(runs, 'demo', 'cache') })).toThrow(InputError);
    expect(() => new RunStore([runs], { cacheDir: join(runs, 'demo', '.cache', 'viewer') })).toThrow(/inside a run directory/);
    expect(snapshot(runs)).toBe(before);
    // A cache beside the runs, in their folder, is no run directory: allowed, and not listed as a run.
    await start(runs, join(runs, '.viewer-cache'));
    expect((await get<RunListEntry[]>('api/runs')).map((r) => r.id)).toEqual(['demo']);
    await viewer!.store.whenAllIndexed();
    expect(existsSync(join(runs, '.viewer-cache'))).toBe(true);
    expect(snapshot(join(runs, 'demo'))).toBe(before.split('\n').filter((l) => l.startsWith('demo/')).map((l) => l.slice('demo/'.length)).join('\n'));
  });
  /** The runs each index of a cache folder belongs to (their folder names), sorted. */
  const indexedRuns = (cacheDir: string) =>
    cacheEntries(cacheDir)
      .map((e) => e.dir!.split('/').slice(-2).join('/'))
      .sort();
  /** Starts a viewer on `runs`, lets it index everything, and stops it. */
  const indexAll = async (runs: string, cacheDir: string) => {
    await start(runs, cacheDir);
    await get<RunListEntry[]>('api/runs');
    await viewer!.store.whenAllIndexed();
    await viewer!.close();
    viewer = null;
  };

  it('frees the index of a deleted run directory at the next start, and keeps those of runs that exist elsewhere', async () => {
    const runs = runsWithDemo('pruned', 'a');
    cpSync(demo, join(runs, 'b'), { recursive: true, preserveTimestamps: true });
    const elsewhere = runsWithDemo('elsewhere', 'c');
    const cacheDir = join(dir, 'cache-pruned');
    await indexAll(runs, cacheDir);
    await indexAll(elsewhere, cacheDir);
    expect(indexedRuns(cacheDir)).toEqual(['elsewhere/c', 'pruned/a', 'pruned/b']);

    rmSync(join(runs, 'b'), { recursive: true });
    await start(runs, cacheDir);
    // Pruned once the run list has been served (the list never waits for it).
    expect((await get<RunListEntry[]>('api/runs')).map((r) => r.id)).toEqual(['a']);
    expect(indexedRuns(cacheDir)).toEqual(['elsewhere/c', 'pruned/a']);
    expect(readdirSync(cacheDir).filter((n) => n.includes('b-'))).toEqual([]); // its -wal and -shm too
  });

  it('stays within its bound: the least recently used indexes go first, never those of the runs being served', async () => {
    const cacheDir = join(dir, 'cache-bounded');
    const folders = ['old', 'recent', 'served'].map((name) => runsWithDemo(`bounded-${name}`, name));
    for (const folder of folders) await indexAll(folder, cacheDir);
    const entries = cacheEntries(cacheDir);
    const byName = (name: string) => entries.find((e) => e.dir!.endsWith(`/${name}`))!;
    // Last used: "old" a day ago, "recent" an hour ago.
    for (const [name, ago] of [['old', 86_400_000], ['recent', 3_600_000]] as const) {
      const when = new Date(Date.now() - ago);
      for (const suffix of ['', '-wal', '-shm']) if (existsSync(byName(name).file + suffix)) utimesSync(byName(name).file + suffix, when, when);
    }
    const total = entries.reduce((n, e) => n + e.bytes, 0);
    // Room for all but one: the least recently used ("old") goes.
    const store = new RunStore([folders[2]!], { cacheDir, cacheLimit: String(total - 1) });
    await store.scan(true);
    const first = store.pruneCache();
    expect(first.orphans).toEqual([]);
    expect(first.evicted.map((e) => e.dir!.split('/').pop())).toEqual(['old']);
    expect(indexedRuns(cacheDir)).toEqual(['bounded-recent/recent', 'bounded-served/served']);
    store.close();
    // A bound smaller than the served run's own index: everything else goes, the served run stays.
    const tight = new RunStore([folders[2]!], { cacheDir, cacheLimit: '1B' });
    await tight.scan(true);
    expect(tight.pruneCache().evicted.map((e) => e.dir!.split('/').pop())).toEqual(['recent']);
    tight.close();
    expect(indexedRuns(cacheDir)).toEqual(['bounded-served/served']);
    expect(parseSize('1.5GiB', 'x')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('500MB', 'x')).toBe(500e6);
    expect(() => parseSize('lots', '--cache-limit')).toThrow(/--cache-limit: expected a size/);
  });

  it('hisrag view --clear-cache empties the cache folder of its indexes (nothing else in it)', async () => {
    const runs = runsWithDemo('cleared');
    const cacheDir = join(dir, 'cache-cleared');
    await indexAll(runs, cacheDir);
    writeFileSync(join(cacheDir, 'notes.txt'), 'not an index\n');
    expect(indexedRuns(cacheDir)).toEqual(['cleared/demo']);
    const result = await runCli(['view', '--clear-cache', '--cache-dir', cacheDir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^hisrag view: removed 1 index \\(\\d+\\.\\d MB\\) from ${cacheDir}\\n$`));
    expect(readdirSync(cacheDir)).toEqual(['notes.txt']);
    const bad = await runCli(['view', runs, '--cache-dir', cacheDir, '--cache-limit', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--cache-limit: expected a size/);
  });
  it('the run list and a run\'s conditions never wait behind indexing: an append of more than 256 KB is left to the background', async () => {
    const runs = join(dir, 'behind');
    const run = join(runs, 'behind');
    mkdirSync(run, { recursive: true });
    for (const file of ['config.json', 'manifest.json', 'summary.json']) cpSync(join(demo, file), join(run, file), { preserveTimestamps: true });
    const items = join(run, 'items.jsonl');
    writeFileSync(items, lines.slice(0, 40).join('\n') + '\n');
    const cacheDir = join(dir, 'cache-behind');
    await indexAll(runs, cacheDir);
    appendFileSync(items, lines.slice(40, 70).join('\n') + '\n');
    const appended = statSync(items).size;
    expect(Buffer.byteLength(lines.slice(40, 70).join('\n'))).toBeGreaterThan(256 * 1024);

    const store = new RunStore([runs], { cacheDir });
    try {
      await store.scan(true);
      // Background indexing on (as once the list has been served); its first step comes after these requests.
      store.startIndexing();
      const [entry] = await store.list();
      expect(await store.run('behind')).not.toBeNull();
      // Neither indexed the append within the request.
      expect(store.counters).toMatchObject({ lines: 0, bytes: 0 });
      expect(entry!.index).toMatchObject({ state: 'indexing', totalBytes: appended });
      await store.whenAllIndexed();
      expect(store.counters).toMatchObject({ lines: 30 });
      expect((await store.list())[0]!.index!.state).toBe('ready');
    } finally {
      store.close();
    }
  });
});
