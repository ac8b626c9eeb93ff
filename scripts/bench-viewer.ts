/**
 * `hisrag view` on a 20,000-answer run, measured in headless Chromium: the server's start (indexing)
 * and memory, then, in the browser, the run list and a run's conditions from opening, the answers
 * table's first rows, a full-text search, a filter, and a scroll to the table's last rows.
 *
 *   node --expose-gc --import tsx scripts/bench-viewer.ts [--runs /tmp/hisrag-large/runs] [--items 4000] [--bundle <out-dir>]
 *
 * With --bundle it also writes the runs as a static bundle there and measures the same in it, from file://.
 *
 * Generates the run first when it is not there (scripts/generate-large-run.ts). Targets (issue 26):
 * run list and conditions ≤ 1.5 s, a filter or a search ≤ 200 ms, server memory not proportional to
 * the answers' text.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { writeBundle } from '../src/viewer/bundle.js';
import { startViewer } from '../src/viewer/server.js';
import { generateLargeRun } from './generate-large-run.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '/tmp/hisrag-large/runs' }, items: { type: 'string', default: '4000' }, chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' }, bundle: { type: 'string' } } });
const runs = values.runs!;
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
const viewer = await startViewer([runs]);
reportRow('server start: index items.jsonl, summary', performance.now() - startedAt);
(globalThis as { gc?: () => void }).gc?.();
const memory = process.memoryUsage();
process.stdout.write(`memory: ${JSON.stringify(Object.fromEntries(Object.entries(memory).map(([k, v]) => [k, Math.round(v / 1e6)])))} MB\n`);
const answers = ((await (await fetch(`${viewer.url}api/runs`)).json()) as { answers: number }[])[0]!.answers;

const browser = await chromium.launch({ executablePath: values.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
try {
  await measure(browser, viewer.url, '');
  if (values.bundle) {
    const t = performance.now();
    const written = await writeBundle([runs], values.bundle);
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
