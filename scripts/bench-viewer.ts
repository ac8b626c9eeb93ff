/**
 * `hisrag view` at scale: the real CLI (`node bin/hisrag.mjs view`) started on many runs, timed from
 * its spawn through the HTTP API, its memory sampled throughout (VmRSS of the server process, from
 * /proc, every 50 ms: the peak is reported).
 *
 *   node --import tsx scripts/bench-viewer.ts [--runs 50] [--answers 20000] [--conditions closed-book,rag@10] [--dir /tmp/hisrag-scale] [--drop-caches]
 *
 * Generates the runs first when they are not there (scripts/generate-large-run.ts: `--runs` runs of
 * `--answers` answers each, in <dir>/runs), starts with an empty cache (<dir>/cache), and prints:
 * cold start → run list (index.html, app.js and /api/runs answered with every run), a run's
 * conditions (/api/runs/<id>, from its summary.json), the background indexing of every answer,
 * a search once indexed (/api/runs/<id>/answers?q=…), then the same after a second start, which
 * must index nothing (/api/indexing's counters), and --starts (10) later starts in a row. Targets
 * (issue 44): run list ≤ 1 s cold and on every later start, conditions ≤ 0.5 s; (issue 35) search
 * ≤ 200 ms, server RSS ≤ 300 MB throughout.
 *
 *   node --expose-gc --import tsx scripts/bench-viewer.ts --browser [--runs-dir /tmp/hisrag-large/runs] [--items 4000] [--bundle <out-dir>]
 *
 * With --browser: the earlier measurement of one 20,000-answer run in headless Chromium (run list,
 * conditions, answers table, search, filters, scroll, compare; --bundle: the same from file://).
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { IndexingStatus, RunDetail, RunListEntry, AnswerPage } from '../src/viewer/api.js';
import { writeBundle } from '../src/viewer/bundle.js';
import { startViewer } from '../src/viewer/server.js';
import { generateLargeRun, generateRuns } from './generate-large-run.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    answers: { type: 'string', default: '20000' },
    conditions: { type: 'string', default: 'closed-book,rag@10' },
    dir: { type: 'string', default: '/tmp/hisrag-scale' },
    browser: { type: 'boolean', default: false },
    'runs-dir': { type: 'string', default: '/tmp/hisrag-large/runs' },
    items: { type: 'string', default: '4000' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    bundle: { type: 'string' },
    'drop-caches': { type: 'boolean', default: false },
    starts: { type: 'string', default: '10' },
  },
});

const CLI = resolve('bin/hisrag.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `hisrag view` as a child process: its URL once printed, its RSS sampled from /proc until it exits. */
function startView(runsDir: string, cacheDir: string): { child: ChildProcess; startedAt: number; url: Promise<string>; peakRss: () => number; stop: () => Promise<number | null> } {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [CLI, 'view', runsDir, '--cache-dir', cacheDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let peak = 0;
  const sample = setInterval(() => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
      peak = Math.max(peak, kb * 1024);
    } catch {
      // exited
    }
  }, 50);
  const exited = new Promise<number | null>((res) => child.on('close', (code) => (clearInterval(sample), res(code))));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = new Promise<string>((res, rej) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const match = /hisrag view: (http:\/\/\S+)/.exec(stdout);
      if (match) res(match[1]!);
    });
    void exited.then((code) => rej(new Error(`hisrag view exited ${code}: ${stderr}`)));
  });
  return { child, startedAt, url, peakRss: () => peak, stop: () => (child.kill('SIGINT'), exited) };
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return (await response.json()) as T;
}

const table: [string, string, string][] = [];
const row = (what: string, value: string, target = '') => table.push([what, value, target]);
const timed = (ms: number, target?: number) => [`${ms.toFixed(0)} ms`, target === undefined ? '' : `≤ ${target} ms: ${ms <= target ? 'yes' : 'NO'}`] as const;

/** One start: until the run list is served (the page, the client, /api/runs with every run), then a run's conditions. */
async function oneStart(label: string, runsDir: string, cacheDir: string, runs: number) {
  const view = startView(runsDir, cacheDir);
  const url = await view.url;
  row(`${label}: spawn → URL printed (Node, the CLI from dist/, finding the runs; load average ${loadavg()[0]!.toFixed(1)})`, `${(performance.now() - view.startedAt).toFixed(0)} ms`);
  let list: RunListEntry[] = [];
  for (;;) {
    try {
      await (await fetch(url)).text();
      await (await fetch(`${url}app.js`)).text();
      list = await getJson<RunListEntry[]>(`${url}api/runs`);
      if (list.length >= runs) break;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  const listMs = performance.now() - view.startedAt;
  row(`${label}: spawn → run list (page, client, /api/runs: ${list.length} runs)`, ...timed(listMs, 1000));
  const target = list[list.length - 1]!;
  let t = performance.now();
  const detail = await getJson<RunDetail>(`${url}api/runs/${encodeURIComponent(target.id)}`);
  const conditionsMs = performance.now() - t;
  row(`${label}: a run's conditions (${detail.cells.length} cells, ${target.id})`, ...timed(conditionsMs, 500));
  return { view, url, list, detail, listMs, conditionsMs };
}

async function scaleBench(): Promise<void> {
  const dir = resolve(values.dir!);
  const runsDir = join(dir, 'runs');
  const cacheDir = join(dir, 'cache');
  const runs = Number(values.runs);
  const answersPerRun = Number(values.answers);
  const conditions = values.conditions!.split(',').map((c) => c.trim()).filter(Boolean);
  const lastRun = join(runsDir, `run-${String(runs - 1).padStart(2, '0')}`);
  if (!existsSync(join(lastRun, 'summary.json'))) {
    const t = performance.now();
    process.stdout.write(`generating ${runs} runs × ${answersPerRun} answers in ${runsDir} …\n`);
    const generated = await generateRuns({ out: runsDir, runs, answers: answersPerRun, conditions });
    process.stdout.write(`  ${generated.answers} answers, ${(generated.bytes / 1e9).toFixed(2)} GB of items.jsonl, ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
  }
  const bytes = Array.from({ length: runs }, (_, i) => statSync(join(runsDir, `run-${String(i).padStart(2, '0')}`, 'items.jsonl')).size).reduce((a, b) => a + b, 0);
  rmSync(cacheDir, { recursive: true, force: true });
  // The CLI as installed: from dist/, rebuilt when a source changed (a stale dist/ would send it to tsx).
  const { compiledIsCurrent } = await import('../bin/sourceStamp.mjs');
  if (!compiledIsCurrent(resolve('.'))) execSync(`${process.execPath} scripts/build.mjs`, { stdio: 'inherit' });

  // Cold: an empty cache.
  const cold = await oneStart('cold start', runsDir, cacheDir, runs);
  const t = performance.now();
  let status: IndexingStatus;
  for (;;) {
    status = await getJson<IndexingStatus>(`${cold.url}api/indexing`);
    if (status.ready === status.runs) break;
    await sleep(500);
  }
  const indexMs = performance.now() - cold.view.startedAt;
  row(`cold start: every answer indexed in the background (${status.indexed.lines} lines, ${(status.indexed.bytes / 1e9).toFixed(2)} GB)`, `${(indexMs / 1000).toFixed(1)} s`, `${(status.indexed.bytes / 1e6 / (indexMs / 1000)).toFixed(0)} MB/s`);
  void t;
  const search = async (label: string, url: string) => {
    // --drop-caches (root): the OS page cache emptied first, so each search reads its index from disk
    // as it would after a pause long enough for the OS to reclaim the cache (this machine keeps little).
    if (values['drop-caches']) {
      try {
        execSync('sync', { stdio: 'ignore' });
        writeFileSync('/proc/sys/vm/drop_caches', '3\n');
        label += ' (OS page cache dropped)';
      } catch (error) {
        label += ` (page cache not dropped: ${(error as Error).message.split('\n')[0]})`;
      }
    }
    const times: number[] = [];
    let total = 0;
    for (const [i, needle] of ['商辂', '第285份', '三元及第', '殿试', '第700份'].entries()) {
      const run = `run-${String((i * 7) % runs).padStart(2, '0')}`;
      const s = performance.now();
      const page = await getJson<AnswerPage>(`${url}api/runs/${run}/answers?model=extractive-baseline&condition=${encodeURIComponent(conditions[conditions.length - 1]!)}&limit=100&q=${encodeURIComponent(needle)}`);
      times.push(performance.now() - s);
      if (page.indexing) throw new Error(`${run}: still indexing`);
      total += page.total;
    }
    row(`${label}: search (5 needles over question, answer, reference of a condition; max, median)`, `${Math.max(...times).toFixed(0)} ms, ${[...times].sort((a, b) => a - b)[2]!.toFixed(0)} ms`, `≤ 200 ms: ${Math.max(...times) <= 200 ? 'yes' : 'NO'} (${total} matches)`);
  };
  await search('cold start, indexed', cold.url);
  row('cold start: server peak RSS (VmRSS, sampled every 50 ms)', `${(cold.view.peakRss() / 1e6).toFixed(0)} MB`, `≤ 300 MB: ${cold.view.peakRss() <= 300e6 ? 'yes' : 'NO'}`);
  const coldExit = await cold.view.stop();

  // Later starts: the same cache, unchanged runs, --starts times in a row (a stall in any one of them counts).
  const later: { listMs: number; conditionsMs: number }[] = [];
  let warmExit: number | null = null;
  for (let start = 2; start <= Number(values.starts) + 1; start++) {
    const warm = await oneStart(`start ${start}`, runsDir, cacheDir, runs);
    later.push({ listMs: warm.listMs, conditionsMs: warm.conditionsMs });
    if (start === 2) {
      await sleep(1000);
      const warmStatus = await getJson<IndexingStatus>(`${warm.url}api/indexing`);
      row('start 2: indexed (lines, bytes, rebuilds) — nothing expected', `${warmStatus.indexed.lines}, ${warmStatus.indexed.bytes}, ${warmStatus.indexed.rebuilds}`, `${warmStatus.ready} of ${warmStatus.runs} runs ready`);
      await search('start 2', warm.url);
      row('start 2: server peak RSS', `${(warm.view.peakRss() / 1e6).toFixed(0)} MB`, `≤ 300 MB: ${warm.view.peakRss() <= 300e6 ? 'yes' : 'NO'}`);
    }
    warmExit = await warm.view.stop();
  }
  const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const lists = later.map((l) => l.listMs);
  const details = later.map((l) => l.conditionsMs);
  row(`later starts (${later.length}): run list, median / max`, `${medianOf(lists).toFixed(0)} / ${Math.max(...lists).toFixed(0)} ms`, `≤ 1000 ms every start: ${Math.max(...lists) <= 1000 ? 'yes' : 'NO'}`);
  row(`later starts (${later.length}): a run's conditions, median / max`, `${medianOf(details).toFixed(0)} / ${Math.max(...details).toFixed(0)} ms`, `≤ 500 ms every start: ${Math.max(...details) <= 500 ? 'yes' : 'NO'}`);

  const answers = cold.list.reduce((n, r) => n + r.answers, 0);
  process.stdout.write(`\n${runs} runs, ${answers} answers, items.jsonl ${(bytes / 1e9).toFixed(2)} GB in all; cache ${cacheDir}; exits ${coldExit}, ${warmExit} (Ctrl-C: 130); ${cpus().length} cores, load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n\n`);
  const width = Math.max(...table.map((r) => r[0].length));
  for (const [what, value, ok] of table) process.stdout.write(`${what.padEnd(width)}  ${value.padStart(14)}  ${ok}\n`);
}

if (values.browser) await browserBench();
else await scaleBench();

async function browserBench(): Promise<void> {
  const runs = values['runs-dir']!;
  const runDir = join(runs, 'large');
  if (!existsSync(join(runDir, 'manifest.json'))) {
    process.stdout.write(`generating ${runDir} …\n`);
    await generateLargeRun({ out: runDir, items: Number(values.items) });
  }
  const itemsBytes = statSync(join(runDir, 'items.jsonl')).size;

  const rows: [string, string, string][] = [];
  const reportRow = (what: string, ms: number, target?: number) => {
    rows.push([what, `${ms.toFixed(0)} ms`, target === undefined ? '' : ms <= target ? `≤ ${target} ms: yes` : `≤ ${target} ms: NO`]);
  };

  /** The browser's figures on one viewer: the live server's URL, or a bundle's index.html as a file:// URL. */
  async function measure(browser: Browser, base: string, label: string): Promise<void> {
    const report = (what: string, ms: number, target?: number) => reportRow(what, ms, target);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // tsx names the functions this script hands to the page (esbuild's keepNames helper): give the page that helper.
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    const timed = async (what: string, action: () => Promise<unknown>, done: (page: Page) => Promise<unknown>, target?: number) => {
      const t = performance.now();
      await action();
      await done(page);
      report(what, performance.now() - t, target);
    };
    const total = () => page.locator('.answers-total').textContent();
    // In the page (this script is typechecked without the DOM's types: `document` through globalThis).
    type Doc = { querySelector(s: string): { textContent: string | null; scrollTop: number; scrollHeight: number; clientHeight: number } | null; querySelectorAll(s: string): ArrayLike<{ querySelector(s: string): unknown }> };
    const waitTotal = (before: string | null) =>
      page.waitForFunction(
        (b) => {
          const t = (globalThis as unknown as { document: Doc }).document.querySelector('.answers-total')?.textContent;
          return t && t !== b && t !== 'searching…';
        },
        before,
        { polling: 'raf' },
      );

    // A first visit loads the client (from the server, like any later one: no cache in a fresh page).
    await timed(label + 'run list, from opening the viewer', () => page.goto(base), (p) => p.locator('tr[data-run="large"]').waitFor(), 1500);
    const fresh = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await fresh.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    let t = performance.now();
    await fresh.goto(`${base}#/run/large`);
    await fresh.locator('table.conditions tr[data-condition="rag@100"]').waitFor();
    report(label + "a run's conditions and charts, from opening its link", performance.now() - t, 1500);
    await fresh.close();
    await timed(label + 'answers table of rag@100, first rows', () => page.goto(`${base}?model=extractive-baseline&condition=rag%40100#/run/large/answers`), (p) => p.locator('.answer-row a').first().waitFor(), 1500);
    /**
     * A search or filter timed in the page: from the input's `input`/`change` event (the keystroke
     * or the choice) to the table's new count on screen (a MutationObserver), so Playwright's own
     * overhead is not counted.
     */
    type Win = { __bench?: { start: number | null; end: number | null } };
    const inPage = async (what: string, action: () => Promise<unknown>, target: number) => {
      const before = await total();
      await page.evaluate((b) => {
        const g = globalThis as unknown as Win & { document: any; performance: { now(): number }; MutationObserver: any };
        const state = { start: null as number | null, end: null as number | null };
        g.__bench = state;
        const mark = () => (state.start ??= g.performance.now());
        g.document.addEventListener('input', mark, { capture: true, once: true });
        g.document.addEventListener('change', mark, { capture: true, once: true });
        const node = g.document.querySelector('.answers-total');
        const observer = new g.MutationObserver(() => {
          const text = node.textContent;
          if (text && text !== b && text !== 'searching…' && state.end === null) {
            state.end = g.performance.now();
            observer.disconnect();
          }
        });
        observer.observe(node, { childList: true, characterData: true, subtree: true });
      }, before);
      await action();
      await page.waitForFunction(() => (globalThis as unknown as Win).__bench?.end != null, undefined, { polling: 'raf' });
      const { start, end } = (await page.evaluate(() => (globalThis as unknown as Win).__bench))!;
      report(what, end! - start!, target);
    };
    await inPage(label + 'search "商辂" (question, answer, reference; 60 ms typing debounce included)', () => page.getByLabel('search').fill('商辂'), 200);
    process.stdout.write(`  search: ${await total()}\n`);
    await inPage(label + 'search "第285份" (the last copy)', () => page.getByLabel('search').fill('第285份'), 200);
    await inPage(label + 'search cleared', () => page.getByLabel('search').fill(''), 200);
    await inPage(label + 'filter: group category = 论述题', () => page.getByLabel('group').selectOption({ label: 'category: 论述题' }), 200);
    await inPage(label + 'filter: differs from rag@10', () => page.getByLabel('differs from').selectOption({ label: 'rag@10' }), 200);
    await inPage(label + 'filter: score 50–100', () => page.getByLabel('minimum score').fill('50').then(() => page.getByLabel('minimum score').press('Tab')), 200);
    await page.goto(`${base}?model=extractive-baseline&condition=rag%40100#/run/large/answers`);
    await page.locator('.answer-row a').first().waitFor();
    t = performance.now();
    await page.locator('.virtual').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    // The rows at the bottom are rendered and filled (no placeholder left): their page was fetched.
    await page.waitForFunction(
      () => {
        const doc = (globalThis as unknown as { document: Doc }).document;
        const rows = Array.from(doc.querySelectorAll('.answer-row'));
        const el = doc.querySelector('.virtual')!;
        return el.scrollTop >= el.scrollHeight - el.clientHeight - 40 && rows.length > 0 && rows.every((r) => r.querySelector('a'));
      },
      undefined,
      { polling: 'raf' },
    );
    report(label + 'scroll to the table\'s last rows, rows shown', performance.now() - t);
    t = performance.now();
    await page.goto(`${base}?ar=large&am=extractive-baseline&ac=closed-book&br=large&bm=extractive-baseline&bc=rag%40100&outcome=worse#/compare`);
    await page.locator('table.items tbody tr').first().waitFor();
    report(label + 'compare closed-book vs rag@100 (paired bootstrap), worse items listed', performance.now() - t);
    await page.close();
  }

  const startedAt = performance.now();
  const viewer = await startViewer([runs], { cacheDir: mkdtempSync(join(tmpdir(), 'hisrag-bench-cache-')) });
  // The server answers at once; the answers are indexed in the background: wait for them, as the old start did.
  await viewer.store.whenAllIndexed();
  reportRow('server start and indexing of items.jsonl (cold cache)', performance.now() - startedAt);
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  process.stdout.write(`memory: ${JSON.stringify(Object.fromEntries(Object.entries(memory).map(([k, v]) => [k, Math.round(v / 1e6)])))} MB\n`);
  const answers = ((await (await fetch(`${viewer.url}api/runs`)).json()) as { answers: number }[])[0]!.answers;

  const browser = await chromium.launch({ executablePath: values.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  try {
    await measure(browser, viewer.url, '');
    if (values.bundle) {
      const t = performance.now();
      const written = await writeBundle([runs], values.bundle, { cacheDir: viewer.store.cacheDir });
      reportRow(`bundle: write ${values.bundle}`, performance.now() - t);
      await measure(browser, pathToFileURL(written.index).href, 'bundle (file://): ');
    }
  } finally {
    await browser.close();
    await viewer.close();
  }

  process.stdout.write(`\n${answers} answers, items.jsonl ${(itemsBytes / 1e6).toFixed(0)} MB; server after indexing: rss ${(memory.rss / 1e6).toFixed(0)} MB, JS heap ${(memory.heapUsed / 1e6).toFixed(0)} MB\n\n`);
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [what, ms, ok] of rows) process.stdout.write(`${what.padEnd(width)}  ${ms.padStart(8)}  ${ok}\n`);

}
