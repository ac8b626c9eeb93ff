import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRun } from '../../src/results/loadRun.js';
import { writeBundle } from '../../src/viewer/bundle.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';
import { makeDemoRuns, maliciousCopy, PAYLOADS, type DemoRuns } from './demoRuns.js';
import { CHROMIUM, hasChromium, closePages, sharedBrowser } from '../helpers/chromium.js';

if (!hasChromium) console.warn(`viewer-in-Chromium tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium fonts-noto-cjk, or set CHROMIUM_PATH)`);

/** expect.poll with room for a loaded machine (its default gives up after 1 s). */
const poll = <T>(fn: () => T | Promise<T>, options: { timeout?: number } = {}) => expect.poll(fn, { timeout: 15_000, ...options });

/** Screenshots go to docs/viewer/ with UPDATE_SCREENSHOTS=1 (for docs/viewer.md), else to the test's temp folder. */
const SHOTS = process.env.UPDATE_SCREENSHOTS ? join(REPO_ROOT, 'docs', 'viewer') : null;

describe.runIf(hasChromium)('hisrag view in Chromium', () => {
  let dir: string;
  let demo: DemoRuns;
  let viewer: ViewerServer;
  let bundleIndex: string;
  let browser: Browser;
  let shots: string;
  let diagnosed = false;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-viewer-e2e-'));
    shots = SHOTS ?? join(dir, 'shots');
    mkdirSync(shots, { recursive: true });
    demo = await makeDemoRuns(dir);
    maliciousCopy(demo.demo, join(demo.runs, 'malicious'));
    // A diagnosed copy of the demo (the diagnostics stage, offline stand-ins), when this tree has `hisrag diagnose`.
    cpSync(demo.demo, join(dir, 'diagnosed'), { recursive: true });
    diagnosed = (await runCli(['diagnose', join(dir, 'diagnosed')])).code === 0;
    if (diagnosed) {
      cpSync(join(dir, 'diagnosed'), join(demo.runs, 'diagnosed'), { recursive: true });
      cpSync(demo.noise, join(dir, 'diagnosed-noise'), { recursive: true });
      expect((await runCli(['diagnose', join(dir, 'diagnosed-noise')])).code).toBe(0);
      cpSync(join(dir, 'diagnosed-noise'), join(demo.runs, 'diagnosed-noise'), { recursive: true });
    }
    else console.warn('viewer diagnostics test skipped: `hisrag diagnose` did not run on the demo');
    viewer = await startViewer([demo.runs], { cacheDir: join(dir, 'view-cache') });
    bundleIndex = (await writeBundle([demo.runs], join(dir, 'bundle'), { cacheDir: join(dir, 'view-cache') })).index;
    browser = await sharedBrowser();
  }, 300_000);
  afterAll(async () => {
    await closePages(browser);
    await viewer?.close();
  });

  /** A page that fails the test on any script error, dialog or request that leaves the viewer. */
  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(viewer.url) && !u.startsWith('file://') && !u.startsWith('data:')) problems.push(`request: ${u}`);
    });
    await page.goto(url);
    return { page, problems };
  }

  /** The path: run list → closed-book vs rag@100 → an item RAG made worse → its passages with gold marked. */
  async function doneWhenPath(page: Page, shot: (name: string) => Promise<void>): Promise<void> {
    await page.locator('tr[data-run="demo"]').waitFor();
    for (const id of ['demo', 'demo-methods', 'demo-noise']) await poll(() => page.locator(`tr[data-run="${id}"]`).count()).toBe(1);
    await shot('runs');
    // The demo: closed-book against rag@100.
    await page.locator('tr[data-run="demo"] a').click();
    await page.locator('table.conditions tr[data-condition="rag@100"]').waitFor();
    await page.locator('figure.chart svg').first().waitFor();
    await shot('run');
    await page.getByLabel('compare A').selectOption({ label: 'closed-book' });
    await page.getByLabel('compare B').selectOption({ label: 'rag@100' });
    await page.getByRole('button', { name: 'compare' }).click();
    const summary = (await loadRun(demo.demo)).summary;
    const paired = summary.paired.find((p) => p.condition === 'rag@100')!;
    await poll(() => page.locator('.compare-summary .delta').textContent()).toBe(`+${paired.meanDiff!.toFixed(2)}`);
    // With the offline stand-in closed-book scores 0 on every demo question: nothing can be worse.
    expect(await page.locator('button[data-outcome="worse"]').textContent()).toBe('worse (0)');
    // Where RAG makes items worse: the LongHisDoc noise demo, closed-book against BM25 at k = 10.
    await page.locator('a.brand').click();
    await page.locator('tr[data-run="demo-noise"] a').click();
    await page.getByLabel('compare A').selectOption({ label: 'closed-book' });
    await page.getByLabel('compare B').selectOption({ label: 'bm25/rag@10' });
    await page.getByRole('button', { name: 'compare' }).click();
    await page.locator('button[data-outcome="worse"]').click();
    // Only worse items listed (the list of all items is replaced).
    await poll(() => page.locator('table.items tbody tr:not(.worse)').count()).toBe(0);
    expect(await page.locator('table.items tr.worse').count()).toBe(3);
    await shot('compare');
    await page.locator('table.items tr.worse a').first().click();
    // The two answers side by side, B's passages in rank order, those that reached the prompt marked.
    const b = page.locator('article.answer-body[data-side="B"]');
    await b.waitFor();
    expect(await page.locator('article.answer-body[data-side="A"]').count()).toBe(1);
    expect(await b.locator('h2').textContent()).toContain('bm25/rag@10');
    const ranks = await b.locator('li.passage .passage-head b').allTextContents();
    expect(ranks).toEqual(ranks.map((_, i) => `#${i + 1}`));
    expect(await b.locator('li.passage[data-in-prompt="true"]').count()).toBeGreaterThan(0);
    // The demo's worse items are its unanswerable questions (closed-book rightly declined): no gold evidence to mark.
    expect(await page.locator('.gold-note').textContent()).toBe('The benchmark names no gold evidence for this item.');
    expect(await b.locator('li.passage[data-gold="true"]').count()).toBe(0);
    // The item it made better has gold pages: marked among the passages.
    await page.goBack();
    await page.locator('button[data-outcome="better"]').click();
    await poll(() => page.locator('table.items tbody tr:not(.better)').count()).toBe(0);
    await page.locator('table.items tr.better a').first().click();
    await b.waitFor();
    expect(await page.locator('.gold-note').textContent()).toMatch(/^Gold evidence: page:\d+/);
    const gold = b.locator('li.passage[data-gold="true"]');
    expect(await gold.count()).toBeGreaterThan(0);
    expect(await gold.first().locator('.gold-badge').isVisible()).toBe(true);
    await shot('answer');
  }

  it("live: a run's charts come from the figure specs, show a value with its interval on hover and hide a series when its legend entry is clicked", async () => {
    const { page, problems } = await open(`${viewer.url}#/run/demo`);
    const chart = page.locator('figure.chart[aria-label="score against k"]');
    await chart.locator('svg g[class*="series_line_marks"] path').first().waitFor();
    // Figures use the width they have: in a 1,400 px window, most of the page's column.
    expect((await chart.locator('svg').first().boundingBox())!.width).toBeGreaterThan(800);
    const point = chart.locator('svg g[class*="series_line_layer_1_marks"] path, svg g[class*="layer_4_layer_1_marks"] path').first();
    const box = (await point.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const tooltip = page.locator('#vg-tooltip-element.visible');
    await tooltip.waitFor();
    expect(await tooltip.textContent()).toMatch(/interval\s*\[\d/);
    const hidden = chart.locator('svg g[class*="series_line_marks"] path[opacity="0"]');
    expect(await hidden.count()).toBe(0);
    await chart.locator('g.role-legend-entry text', { hasText: /^rag$/ }).first().click();
    await poll(() => hidden.count()).toBe(1);
    // The depth curve's P(best k), from the same spec the report draws: one line over the four depths, its value on hover.
    const pBest = page.locator('figure.chart[aria-label="P(best k)"]');
    await pBest.locator('svg g[class*="series_line_marks"] path').first().waitFor();
    const pBestPoints = pBest.locator('svg g[class*="series_line_layer_1_marks"] path, svg g[class*="layer_4_layer_1_marks"] path');
    expect(await pBestPoints.count()).toBe(4);
    await pBest.scrollIntoViewIfNeeded();
    const last = (await pBestPoints.last().boundingBox())!;
    await page.mouse.move(last.x + last.width / 2, last.y + last.height / 2);
    await poll(async () => (await tooltip.textContent()) ?? '').toMatch(/P\(best k\), bootstrap\s*0\.\d\d/);
    expect(problems).toEqual([]);
  });

  it('live: from the run list to closed-book vs rag@100, to an item RAG made worse, to its passages with gold marked; the link reproduces the view', async () => {
    const { page, problems } = await open(viewer.url);
    await doneWhenPath(page, (name) => page.screenshot({ path: join(shots, `${name}.png`) }).then(() => {}));
    const again = await browser.newPage();
    await again.goto(page.url());
    await again.locator('article.answer-body[data-side="B"] li.passage[data-gold="true"]').first().waitFor();
    await again.close();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('live: filters and full-text search over a condition\'s answers, and an answer\'s page with reference, verdicts, trace and cost', async () => {
    const { page, problems } = await open(`${viewer.url}?model=extractive-baseline&condition=rag%40100#/run/demo/answers`);
    await poll(() => page.locator('.answers-total').textContent()).toBe('14 answers');
    const started = Date.now();
    await page.getByLabel('search').fill('商辂'); // in demo-prohist-001's reference answer, and one passage rag@100 quoted
    await poll(() => page.locator('.answers-total').textContent()).toBe('2 answers');
    expect(await page.locator('.answer-row a').allTextContents()).toEqual(['demo-prohist-001', 'demo-prohist-014']);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(page.url()).toContain('q=');
    await page.getByLabel('search').fill('');
    await page.getByLabel('group').selectOption({ label: 'category: 选择题' });
    await poll(() => page.locator('.answers-total').textContent()).toBe('2 answers');
    await page.getByLabel('group').selectOption({ label: 'all' });
    await page.getByLabel('differs from').selectOption({ label: 'rag@10' });
    await poll(async () => Number((await page.locator('.answers-total').textContent())!.split(' ')[0])).toBeLessThan(14);
    await page.locator('.answer-row a').first().click();
    await page.locator('article.answer-body').waitFor();
    expect(await page.locator('pre.reference').count()).toBe(1);
    expect(await page.locator('ul.verdicts li').count()).toBeGreaterThan(0);
    expect(await page.locator('p.cost').textContent()).toContain('retrieval calls');
    expect(await page.locator('table.others tbody tr').count()).toBe(4);
    // The methods demo's conditions pivoted: a method per row, a depth per column.
    await page.goto(`${viewer.url}?rows=method&cols=k#/run/demo-methods`);
    await page.locator('table.pivot').waitFor();
    expect(await page.locator('table.pivot thead th').allTextContents()).toEqual(['method \\ k', '–', '5', '20']);
    expect(await page.locator('table.pivot tbody th').allTextContents()).toEqual(['closed-book', 'standard', 'refine-extractive', 'refine-abstractive', 'adaptive', 'iter-retgen', 'ircot', 'self-ask', 'sure']);
    // A method's trace: a multi-step answer of the methods demo.
    await page.goto(`${viewer.url}?key=${encodeURIComponent('extractive-baseline|ircot@20|prohist:demo-prohist-001')}#/run/demo-methods/answer`);
    await page.locator('table.trace tbody tr').first().waitFor();
    expect(await page.locator('table.trace tbody tr').count()).toBeGreaterThan(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('bundle from file://: the same path, search and filters with no server', async () => {
    const { page, problems } = await open(pathToFileURL(bundleIndex).href);
    expect(await page.locator('header .mode').textContent()).toBe('bundle');
    await doneWhenPath(page, async () => {});
    await page.goto(`${pathToFileURL(bundleIndex).href}?model=extractive-baseline&condition=rag%40100#/run/demo/answers`);
    await poll(() => page.locator('.answers-total').textContent()).toBe('14 answers');
    await page.getByLabel('search').fill('商辂');
    await poll(() => page.locator('.answers-total').textContent()).toBe('2 answers');
    expect(problems).toEqual([]);
    await page.close();
  });

  for (const where of ['live', 'bundle'] as const) {
    it(`${where}: model answers, questions, passages and groups with markup or script are shown as text`, async () => {
      const base = where === 'live' ? viewer.url : pathToFileURL(bundleIndex).href;
      const { page, problems } = await open(`${base}?model=extractive-baseline&condition=rag%40100#/run/malicious/answers`);
      await page.locator('.answer-row a').first().waitFor();
      const text = await page.locator('.virtual').textContent();
      for (const payload of PAYLOADS) expect(text).toContain(payload);
      await page.locator('.answer-row a').first().click();
      await page.locator('pre.answer-text').waitFor();
      const answer = (await page.locator('pre.answer-text').textContent())!;
      expect(PAYLOADS.some((p) => answer.startsWith(p))).toBe(true);
      expect(await page.locator('li.passage .passage-head').first().textContent()).toContain('<img src=x onerror=alert(3)>');
      await page.goto(`${base}#/run/malicious`);
      await page.locator('table.groups').waitFor();
      expect(await page.locator('table.groups').textContent()).toContain('<b>x</b>');
      // Nothing ran and no element came from the data.
      expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
      expect(await page.locator('img[src="x"], main svg[onload], main b:text-is("x")').count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  it('live: a diagnosed run shows helped / hurt in its table and in Compare, and each answer\'s claims with their labels', async (context) => {
    if (!diagnosed) return context.skip();
    const { page, problems } = await open(`${viewer.url}#/run/diagnosed`);
    await page.locator('table.conditions tr[data-condition="rag@100"]').waitFor();
    const summary = JSON.parse(readFileSync(join(demo.runs, 'diagnosed', 'summary.json'), 'utf8'));
    const d = summary.cells.find((c: { condition: string }) => c.condition === 'rag@100').diagnostics.decomposition;
    expect(await page.locator('table.conditions tr[data-condition="rag@100"]').textContent()).toContain(`${d.helped.n} / ${d.hurt.n} / ${d.unchanged.n}`);
    await page.locator('table.conditions tr[data-condition="rag@100"] a', { hasText: 'vs closed-book' }).click();
    await poll(() => page.locator('p.diagnostics').textContent()).toContain(`helped ${d.helped.n}`);
    await page.locator('button[data-outcome="better"]').click();
    await poll(() => page.locator('table.items tbody tr:not(.better)').count()).toBe(0);
    await page.locator('table.items tr.better a').first().click();
    const b = page.locator('article.answer-body[data-side="B"]');
    await b.locator('.diagnostics ol.claims li').first().waitFor();
    expect(await b.locator('.diagnostics ol.claims li .badge').first().textContent()).toMatch(/^(entailment|neutral|contradiction|not checked)$/);
    expect(await b.locator('.support-badge').count()).toBeGreaterThan(0);
    // With gold evidence (LongHisDoc pages), Compare splits helped / hurt by where the gold ended up.
    await page.goto(`${viewer.url}?ar=diagnosed-noise&am=extractive-baseline&ac=closed-book&br=diagnosed-noise&bm=extractive-baseline&bc=bm25%2Frag%4010#/compare`);
    const causes = page.locator('table.causes').first();
    await causes.waitFor();
    expect(await causes.locator('thead').textContent()).toContain('in the final prompt');
    expect(await causes.locator('tbody tr').first().textContent()).toMatch(/^helped\d/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('live: a run links to the previous run of its experiment and compares the two (latest against previous)', async () => {
    const rerun = join(demo.runs, 'demo-rerun');
    cpSync(demo.demo, rerun, { recursive: true });
    const manifestFile = join(rerun, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, runId: 'demo-rerun', startedAt: new Date(Date.parse(manifest.startedAt) + 60_000).toISOString() }));
    const { page, problems } = await open(`${viewer.url}#/run/demo-rerun`);
    await page.locator('p.previous a').first().waitFor({ timeout: 10_000 });
    // Copies of the demo made by these tests (malicious, diagnosed) started at the same moment as it.
    expect(['demo', 'malicious', 'diagnosed']).toContain(await page.locator('p.previous a').first().textContent());
    await page.locator('p.previous a', { hasText: 'this run against the previous' }).click();
    // The same answers: Δ 0 on all 14 items, all of them the same.
    await poll(() => page.locator('.compare-summary .delta').textContent()).toBe('0.00');
    expect(await page.locator('button[data-outcome="same"]').textContent()).toBe('same (14)');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('live: a run in progress gains answers on screen as they are written', async () => {
    const live = join(demo.runs, 'in-progress');
    mkdirSync(live);
    cpSync(join(demo.demo, 'config.json'), join(live, 'config.json'));
    const manifest = JSON.parse(readFileSync(join(demo.demo, 'manifest.json'), 'utf8'));
    // What the runner writes while it works: complete false, and its own process in `sessions`.
    writeFileSync(join(live, 'manifest.json'), JSON.stringify({ ...manifest, runId: 'in-progress', complete: false, finishedAt: null, sessions: [{ startedAt: manifest.startedAt, pid: process.pid }] }));
    const lines = readFileSync(join(demo.demo, 'items.jsonl'), 'utf8').trim().split('\n');
    appendFileSync(join(live, 'items.jsonl'), lines.slice(0, 10).join('\n') + '\n');
    const { page, problems } = await open(viewer.url);
    await page.locator('tr[data-run="in-progress"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('tr[data-run="in-progress"] .status').textContent()).toBe('in progress');
    await page.locator('tr[data-run="in-progress"] a').click();
    await poll(() => page.locator('.answers-count').textContent()).toBe('10');
    appendFileSync(join(live, 'items.jsonl'), lines.slice(10, 40).join('\n') + '\n');
    await poll(() => page.locator('.answers-count').textContent(), { timeout: 15_000 }).toBe('40');
    appendFileSync(join(live, 'items.jsonl'), lines.slice(40).join('\n') + '\n');
    writeFileSync(join(live, 'manifest.json'), JSON.stringify({ ...manifest, runId: 'in-progress' }));
    await poll(() => page.locator('.answers-count').textContent(), { timeout: 15_000 }).toBe('70');
    await page.goto(`${viewer.url}#/`);
    await poll(() => page.locator('tr[data-run="in-progress"] .status').textContent(), { timeout: 15_000 }).toBe('done');
    expect(problems).toEqual([]);
    await page.close();
  });
});
