import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let launched: Promise<Browser> | undefined;

/**
 * One headless Chromium per test process, shared by every file its fork runs (the suite runs
 * without per-file isolation): a launch costs a second or more on this machine. A file opens its
 * pages in contexts of its own and closes them with `closePages`; the browser ends with the
 * process (Playwright closes the pipe it drives Chromium through).
 */
export function sharedBrowser(): Promise<Browser> {
  launched ??= chromium.launch({ executablePath: CHROMIUM, args: ARGS }).then((browser) => {
    browser.on('disconnected', () => (launched = undefined));
    return browser;
  });
  return launched;
}

/** Closes every page a file opened (each `browser.newPage()` has a context of its own); files of one fork run one after another. */
export async function closePages(browser: Browser | undefined): Promise<void> {
  await Promise.all((browser?.contexts() ?? []).map((context) => context.close()));
}
