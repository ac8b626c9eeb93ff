import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBundle } from '../../src/viewer/bundle.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { DOC_ID, writeImageRun, type ImageRun } from './imageRunFixture.js';
import { CHROMIUM, hasChromium, closePages, sharedBrowser } from '../helpers/chromium.js';

if (!hasChromium) console.warn(`page-image viewer tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
const answerHash = (item: string) => `?key=${encodeURIComponent(`m|image-input|longhisdoc:${item}`)}#/run/image-run/answer`;

describe.runIf(hasChromium)('hisrag view in Chromium: the page images an answer showed', () => {
  let run: ImageRun;
  let viewer: ViewerServer;
  let browser: Browser;
  let bundleIndex: string;
  let shots: string;

  beforeAll(async () => {
    run = await writeImageRun();
    shots = join(run.root, 'shots');
    mkdirSync(shots);
    viewer = await startViewer([join(run.root, 'runs')], { cacheDir: join(run.root, 'view-cache') });
    bundleIndex = (await writeBundle([join(run.root, 'runs')], join(run.root, 'bundle'), { cacheDir: join(run.root, 'view-cache') })).index;
    browser = await sharedBrowser();
  }, 120_000);
  afterAll(async () => {
    await closePages(browser);
    await viewer?.close();
    if (!process.env.KEEP_SHOTS) rmSync(run.root, { recursive: true, force: true });
    else console.log(`screenshots in ${shots}`);
  });

  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
    await page.goto(url);
    return { page, problems };
  }

  /** Natural widths of the thumbnails shown (0 for one that did not load). */
  // The callbacks run in the page; the test's tsconfig has no DOM types, hence the structural casts.
  type Img = { complete: boolean; naturalWidth: number; naturalHeight: number };
  const loadedWidths = (page: Page) => page.locator('li.page-image img').evaluateAll((imgs) => imgs.map((i) => ((i as unknown as Img).complete ? (i as unknown as Img).naturalWidth : -1)));

  it('shows the thumbnails in prompt order with document and page, evidence marked, and a click opens the full-size scan', async () => {
    const { page, problems } = await open(`${viewer.url}${answerHash('q3')}`);
    await page.locator('ol.page-images').waitFor();
    await poll(() => loadedWidths(page)).toEqual([160, 160]);
    const captions = await page.locator('li.page-image .page-caption').allTextContents();
    expect(captions.map((c) => c.trim())).toEqual([`${DOC_ID} 第3页evidence`, `${DOC_ID} 第2页`]);
    expect(await page.locator('li.page-image').evaluateAll((els) => els.map((e) => e.getAttribute('data-evidence')))).toEqual(['true', 'false']);
    await page.locator('h3', { hasText: 'Page images shown to the model' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'answer-page-images.png'), fullPage: true });
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('li.page-image a').first().click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe(new URL(`api/runs/image-run/images/0/${DOC_ID}/page_3.jpg`, viewer.url).href);
    expect(await popup.locator('img').evaluate((i) => [(i as unknown as Img).naturalWidth, (i as unknown as Img).naturalHeight])).toEqual([800, 1200]);
    expect(problems).toEqual([]);
  });

  it('shows the image-against-OCR table on the run page', async () => {
    const { page, problems } = await open(`${viewer.url}#/run/image-run`);
    const row = page.locator('table.modality tr[data-condition="image-input"][data-against="ocr-input"]');
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells[0]).toBe('image-input − ocr-input');
    expect(cells[1]).toMatch(/^\+33\.33 \[/);
    expect(cells[cells.length - 1]!.trim()).toBe('3 / 1 / 2');
    await page.locator('#image-vs-ocr').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'run-modality.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  it('shows the bundled thumbnails from file://, without links to full-size images the bundle does not carry', async () => {
    const { page, problems } = await open(`${pathToFileURL(bundleIndex).href}${answerHash('q1')}`);
    await page.locator('ol.page-images').waitFor();
    await poll(() => loadedWidths(page)).toEqual([160, 160, 160]);
    expect(await page.locator('li.page-image a').count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
