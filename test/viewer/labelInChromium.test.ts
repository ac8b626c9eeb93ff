import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawRunLabelSample } from '../../src/app/labelSample.js';
import { readLabelHistory, readLabels } from '../../src/runFiles/labelFiles.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { makeLabelRun } from '../helpers/labelRun.js';
import { CHROMIUM, hasChromium, closePages, sharedBrowser } from '../helpers/chromium.js';

if (!hasChromium) console.warn(`label-page-in-Chromium tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium fonts-noto-cjk, or set CHROMIUM_PATH)`);

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

describe.runIf(hasChromium)('the annotation page in Chromium', () => {
  let run: string;
  let viewer: ViewerServer;
  let browser: Browser;
  let foreign: Server;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'label-e2e-'));
    run = makeLabelRun(join(root, 'run1'), ['closed-book', 'rag@10']);
    await drawRunLabelSample(run, { size: 4, seed: 2 });
    viewer = await startViewer([root], { cacheDir: join(root, 'cache') });
    // Another site on the same machine, whose page tries to write a label.
    foreign = createServer((_req, res) => res.end('<!doctype html><title>elsewhere</title>'));
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    browser = await sharedBrowser();
  }, 120_000);
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await closePages(browser);
    await viewer?.close();
    foreign?.close();
  });

  async function openPage(hash: string): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // As a tab that draws no frames (in the background, or on a loaded machine): Preact's deferred
    // effects then wait for their 100 ms fallback, and keys pressed as soon as the page shows must count.
    await page.addInitScript(() => {
      (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame = () => 0;
    });
    await page.goto(`${viewer.url}${hash}`);
    return page;
  }
  const marks = (page: Page) => page.locator('table.rubric-marks td.mine .mark').allTextContents();

  it('marks with the keyboard, blind until saved, and finds the marks again after a reload', async () => {
    const page = await openPage('#/run/run1/label');
    await page.getByLabel('annotator').fill('zhang');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.locator('table.rubric-marks').waitFor();
    const items = await page.locator('tr.rubric-item').count();
    expect(items).toBeGreaterThan(2);
    // Blind: no judge column, no judge mark, no condition anywhere on the page.
    expect(await page.locator('.judge-mark').count()).toBe(0);
    for (const condition of ['closed-book', 'rag@10']) expect(await page.locator('body').textContent()).not.toContain(condition);
    // 1 (hit) on the first item, 0 (miss) on the second, k k back to the first and h (focus moves on), then m for the rest.
    await page.keyboard.press('1');
    await page.keyboard.press('0');
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await page.keyboard.press('h');
    for (let i = 1; i < items; i++) await page.keyboard.press('m');
    const expected = ['hit', 'miss', ...Array(items - 2).fill('miss')];
    expect(await marks(page)).toEqual(expected);
    expect(await page.locator('.judge-mark').count()).toBe(0);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.save-state').textContent()).toMatch(/^saved/);
    // After the save the judge's marks (all hits in this run) and the answer's condition are shown.
    await poll(() => page.locator('.judge-mark').allTextContents()).toEqual(Array(items).fill('hit'));
    await poll(() => page.locator('.judge-reveal').textContent()).toMatch(/closed-book|rag@10/);
    // The next answer, all hits; saved.
    await page.keyboard.press('n');
    await poll(() => page.locator('.label-progress b').first().textContent()).toBe('2');
    expect(await page.locator('.judge-mark').count()).toBe(0);
    const second = await page.locator('tr.rubric-item').count();
    for (let i = 0; i < second; i++) await page.keyboard.press('1');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.labelled-count').textContent()).toBe('2');

    await page.reload();
    await poll(() => page.locator('.labelled-count').textContent()).toBe('2');
    // The reload opens the first answer not yet labelled; p goes back to the saved ones.
    expect(await page.locator('.label-progress b').first().textContent()).toBe('3');
    await page.keyboard.press('p');
    await poll(() => marks(page)).toEqual(Array(second).fill('hit'));
    await page.keyboard.press('p');
    await poll(() => marks(page)).toEqual(expected);
    expect((await readLabels(run, 'zhang')).map((l) => Object.values(l.verdicts!).filter((v) => v === 1).length)).toEqual([1, second]);
    await page.close();
  });

  it('refuses a label write from another origin or without the page’s token', async () => {
    const before = (await readLabelHistory(run, 'zhang')).length;
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`);
    const url = `${viewer.url}api/runs/run1/labels`;
    // A simple cross-origin POST (no preflight) still reaches the server: it must refuse it.
    await page.evaluate(async (target) => {
      await fetch(target, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ annotator: 'zhang', index: 0, correct: 1 }) }).catch(() => null);
      await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ annotator: 'zhang', index: 0, correct: 1 }) }).catch(() => null);
    }, url);
    // The viewer's own page without the token.
    const own = await openPage('#/');
    const status = await own.evaluate(async (target) => (await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ annotator: 'zhang', index: 0, correct: 1 }) })).status, url);
    expect(status).toBe(403);
    expect((await readLabelHistory(run, 'zhang')).length).toBe(before);
    await page.close();
    await own.close();
  });

  it('two tabs labelling at once lose nothing', async () => {
    const [a, b] = await Promise.all([openPage('?annotator=li#/run/run1/label'), openPage('?annotator=li#/run/run1/label')]);
    for (const page of [a, b]) await page.locator('table.rubric-marks').waitFor();
    await b.keyboard.press('n');
    await poll(() => b.locator('.label-progress b').first().textContent()).toBe('2');
    for (const page of [a, b]) {
      const n = await page.locator('tr.rubric-item').count();
      for (let i = 0; i < n; i++) await page.keyboard.press('1');
    }
    await Promise.all([a.keyboard.press('Enter'), b.keyboard.press('Enter')]);
    for (const page of [a, b]) await poll(() => page.locator('.save-state').textContent()).toMatch(/^saved/);
    expect((await readLabels(run, 'li')).length).toBe(2);
  });
});
