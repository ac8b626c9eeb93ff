import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BANDS } from '../../src/figures/lineFigure.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { runCli } from '../helpers/runCli.js';
import { CHROMIUM, hasChromium, closePages, sharedBrowser } from '../helpers/chromium.js';

if (!hasChromium) console.warn(`methods-report-in-Chromium test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** A figure spec's colours: series label → colour, from its colour scale (the one every layer, facet and panel uses). */
function specColors(path: string): Record<string, string> {
  const spec = JSON.parse(readFileSync(path, 'utf8')) as { spec?: { layer: unknown[] }; layer?: unknown[]; concat?: { layer: unknown[] }[] };
  const layer = (spec.layer ?? spec.spec?.layer ?? spec.concat![0]!.layer)[0] as { encoding: { color: { scale: { domain: string[]; range: string[] } } } };
  const { domain, range } = layer.encoding.color.scale;
  return Object.fromEntries(domain.map((label, i) => [label, range[i]!]));
}

describe.runIf(hasChromium)('the methods report in Chromium', () => {
  let browser: Browser;
  let reportUrl: string;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-methods-report-'));
    const file = demoConfigIn(dir, (config) => (config.benchmark.limit = 6), 'demo-methods.yaml', 'demo-methods.yaml');
    const result = await runCli(['run', file, '--run-id', 'methods', '--no-progress', '--quiet']);
    expect(result.code).toBe(0);
    reportUrl = pathToFileURL(join(dir, 'runs', 'methods', 'report.html')).href;
    browser = await sharedBrowser();
  }, 240_000);
  afterAll(async () => closePages(browser));

  it('draws each condition in one colour in every chart', async () => {
    const figures = join(dir, 'runs', 'methods', 'figures');
    const depth = specColors(join(figures, 'score-vs-k.vl.json'));
    const cost = specColors(join(figures, 'score-vs-cost.vl.json'));
    const shared = Object.keys(depth).filter((label) => label in cost);
    // closed-book and the eight methods appear in both charts.
    expect(shared.length).toBeGreaterThanOrEqual(9);
    for (const label of shared) expect(cost[label], label).toBe(depth[label]);
    // …and no two conditions share a colour.
    expect(new Set(shared.map((label) => depth[label])).size).toBe(shared.length);
  });

  it('overlaps no more than a few CI bands per chart: many series get error bars', async () => {
    const page = await browser.newPage();
    await page.goto(reportUrl);
    for (const chart of await page.locator('svg').all()) {
      expect(await chart.locator('g[class*="ci_band_marks"]').count()).toBeLessThanOrEqual(MAX_BANDS);
    }
    expect(await page.locator('svg.depth-chart g[class*="error_bar_marks"]').count()).toBeGreaterThan(0);
    // Nine series (eight methods and closed-book) are drawn as small multiples, one plot per method, not piled into one.
    expect(await page.locator('svg.depth-chart g.role-title').count()).toBeGreaterThanOrEqual(8);
  });

  it('renders the Chinese category headers with a CJK font, not as missing-glyph boxes', async () => {
    // The machine has a font for Chinese (fontconfig, which Chromium uses; .ci/run installs fonts-noto-cjk)…
    expect(execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim()).not.toBe('');
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    await page.goto(reportUrl);
    const header = page.locator('table.groups th', { hasText: '名词解释' }).first();
    expect(await header.count()).toBe(1);
    // …and the page uses it. Draw the header's text and a code point no font has (always a missing-glyph box) in the
    // header's own font: a font without Chinese draws the two alike.
    // (A string, run in the page: this file is type-checked without the DOM's types.)
    const distinct = await page.evaluate(`(() => {
      const th = [...document.querySelectorAll('table.groups th')].find((cell) => cell.textContent === '名词解释');
      const font = getComputedStyle(th).font;
      const draw = (text) => {
        const canvas = document.createElement('canvas');
        canvas.width = 200;
        canvas.height = 40;
        const context = canvas.getContext('2d');
        context.font = font;
        context.fillText(text, 4, 28);
        return Array.from(context.getImageData(0, 0, 200, 40).data).join(',');
      };
      return draw('名词解释') !== draw('\\u{10FFFD}\\u{10FFFD}\\u{10FFFD}\\u{10FFFD}');
    })()`);
    expect(distinct).toBe(true);
    await header.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(dir, 'methods-report-groups.png') });
  });
});
