import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { renderReportHtml } from '../../src/report/html.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { CHROMIUM, hasChromium, closePages, sharedBrowser } from '../helpers/chromium.js';

if (!hasChromium) console.warn(`report-in-Chromium test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.runIf(hasChromium)('the HTML report in Chromium', () => {
  it('opens offline and shows the depth chart, the tables and the drill-down', async () => {
    const conditions = ['closed-book', 'rag@10', 'rag@20', 'rag@50'];
    const records = [];
    for (let i = 0; i < 5; i++) {
      for (const [j, condition] of conditions.entries()) records.push(makeRecord({ itemId: String(i), condition, score: scored(20 + 5 * j + i) }));
    }
    const summary = summarizeRun(records, { experiment: 'browser', models: ['m'], conditions, baseline: 'closed-book', resamples: 200, seed: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReportHtml({ summary, records, manifest: { version: 0, runId: 'browser' } }));

    const browser = await sharedBrowser();
    try {
      const page = await browser.newPage();
      const failedRequests: string[] = [];
      page.on('requestfailed', (r) => failedRequests.push(r.url()));
      // Offline: any request that is not the file itself is recorded and refused.
      const outside: string[] = [];
      await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : (outside.push(route.request().url()), route.abort())));
      await page.goto(pathToFileURL(file).href);
      expect(await page.title()).toBe('hisrag report: browser');
      const chart = page.locator('svg.depth-chart');
      expect(await chart.count()).toBe(1);
      const box = await chart.boundingBox();
      expect(box!.width).toBeGreaterThan(300);
      expect(await page.locator('svg.depth-chart g[class*="series_line_marks"]').count()).toBe(1);
      expect(await page.locator('svg.depth-chart g[class*="reference_line_marks"]').count()).toBe(1);
      expect(await page.locator('table.conditions tr').count()).toBe(1 + conditions.length);
      expect(await page.locator('details.question').count()).toBe(5);
      await page.locator('details.question summary').first().click();
      expect(await page.locator('details.question').first().getAttribute('open')).not.toBeNull();
      await page.screenshot({ path: join(dir, 'report.png'), fullPage: false });
      expect(failedRequests).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await closePages(browser);
    }
  });
});
