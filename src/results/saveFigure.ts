import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { atomicWrite } from '../io/atomicWrite.js';

export interface SavedFigure {
  svg: string;
  /** Null when PNG export was off or no Chromium was found (`reason` says which). */
  png: string | null;
  /** Set when PDF export was asked for and Chromium printed it. */
  pdf?: string;
  reason?: string;
}

const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * Saves a chart as `<base>.svg` and, when a Chromium is at hand, `<base>.png` (and `<base>.pdf` when asked) (rendered by
 * headless Chromium through playwright-core at 2× scale). `base` may end in `.svg`. PNG export
 * is skipped, not failed, without Chromium: set `CHROMIUM_PATH` or install Debian's `chromium`.
 */
export async function saveFigure(svg: string, base: string, options: SaveFigureOptions = {}): Promise<SavedFigure> {
  return (await saveFigures([{ svg, path: base }], options))[0]!;
}

export interface SaveFigureOptions {
  png?: boolean;
  /** Also print each figure to `<base>.pdf` (vector; headless Chromium's print, sized to the figure). */
  pdf?: boolean;
  chromiumPath?: string;
}

/** Saves several charts with one Chromium start (starting it takes seconds). */
export async function saveFigures(figures: { svg: string; path: string }[], options: SaveFigureOptions = {}): Promise<SavedFigure[]> {
  const saved: SavedFigure[] = [];
  for (const figure of figures) {
    const stem = resolve(figure.path.replace(/\.(svg|png)$/i, ''));
    await mkdir(dirname(stem), { recursive: true });
    await atomicWrite(`${stem}.svg`, figure.svg);
    saved.push({ svg: `${stem}.svg`, png: null });
  }
  if (options.png === false && !options.pdf) return saved.map((s) => ({ ...s, reason: 'PNG export off' }));
  const chromiumPath = options.chromiumPath ?? process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;
  if (!existsSync(chromiumPath)) return saved.map((s) => ({ ...s, reason: `no Chromium at ${chromiumPath} (set CHROMIUM_PATH)` }));
  // Loaded on demand: playwright-core is a devDependency, needed only for PNG export.
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 2 });
    for (const [i, figure] of figures.entries()) {
      await page.setContent(`<!doctype html><html><body style="margin:0;background:#fff">${figure.svg}</body></html>`);
      const svg = page.locator('svg').first();
      if (options.png !== false) {
        const pngPath = saved[i]!.svg.replace(/\.svg$/, '.png');
        await atomicWrite(pngPath, await svg.screenshot({ type: 'png' }));
        saved[i] = { ...saved[i]!, png: pngPath };
      }
      if (options.pdf) {
        const box = (await svg.boundingBox())!;
        const pdfPath = saved[i]!.svg.replace(/\.svg$/, '.pdf');
        await atomicWrite(pdfPath, await page.pdf({ width: `${Math.ceil(box.width)}px`, height: `${Math.ceil(box.height) + 1}px`, printBackground: true, pageRanges: '1' }));
        saved[i] = { ...saved[i]!, pdf: pdfPath };
      }
    }
  } finally {
    await browser.close();
  }
  return saved;
}
