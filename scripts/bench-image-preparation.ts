/**
 * Page-image preparation against sharp alone, in one run (docs/performance.md, "Page images"):
 *
 *   node --import tsx scripts/bench-image-preparation.ts [--pages 60] [--width 1500] [--height 2200] [--rounds 2]
 *
 * On generated page-like scans (scripts/pageLikeScan.ts: ~0.7 MB JPEGs at 1500×2200):
 *  (a) sharp alone: read the file, resize within maxPixels 1,003,520, encode JPEG q85, as many at
 *      once as there are cores;
 *  (b) hisrag's ImagePreparer with a cold cache (read once, sha256, decode, resize, encode, store);
 *  (c) the same with a warm cache (a fresh preparer, so every source is read and hashed again);
 *  (d) peak RSS while 30 pages × 4 requests (an endpoint's concurrency) are asked for at once, the
 *      data URLs built as the generator sends them.
 * The arms alternate `--rounds` times; each reports its best round. Exits 1 when (b) is below 0.8× (a).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { ImagePreparer } from '../src/generation/imagePreparation.js';
import { preparedSize } from '../src/corpus/pageImageSize.js';
import { ImageSettingsSchema } from '../src/generation/imageTokens.js';
import type { PageImageRef } from '../src/prompting/types.js';
import { pageLikeScan } from './pageLikeScan.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '60' },
    width: { type: 'string', default: '1500' },
    height: { type: 'string', default: '2200' },
    rounds: { type: 'string', default: '2' },
  },
});
const PAGES = Number(values.pages);
const WIDTH = Number(values.width);
const HEIGHT = Number(values.height);
const ROUNDS = Number(values.rounds);
const cores = availableParallelism();

const root = mkdtempSync(join(tmpdir(), 'hisrag-bench-images-'));
const imageDir = join(root, 'LongHisDoc_IMG');
const settingsFor = (cache: string) => ImageSettingsSchema.parse({ maxPixels: 1_003_520, format: 'jpeg', quality: 85, tokens: { formula: 'qwen-vl' }, cache });

async function writePages(): Promise<PageImageRef[]> {
  const refs: PageImageRef[] = [];
  await mkdir(join(imageDir, '99001'), { recursive: true });
  for (let page = 1; page <= PAGES; page++) {
    const bytes = await pageLikeScan(WIDTH, HEIGHT, page);
    const path = `99001/page_${page}.jpg`;
    await writeFile(join(imageDir, path), bytes);
    refs.push({ imageDir, path, docId: '99001', page, width: WIDTH, height: HEIGHT, bytes: bytes.length });
  }
  return refs;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}

/** (a): what sharp does with nothing around it, at the same parallelism as the preparer. */
async function sharpAlone(pages: PageImageRef[]): Promise<number> {
  const limit = pLimit(cores);
  return timed(() =>
    Promise.all(
      pages.map((page) =>
        limit(async () => {
          const size = preparedSize(page, { maxPixels: 1_003_520 });
          const input = await readFile(join(page.imageDir, page.path));
          return sharp(input).resize(size.width, size.height, { fit: 'fill' }).jpeg({ quality: 85 }).toBuffer();
        }),
      ),
    ),
  );
}

let caches = 0;
const freshCache = () => join(root, `prepared-${++caches}.sqlite`);

async function main(): Promise<void> {
  const pages = await writePages();
  const sourceMb = pages.reduce((n, p) => n + p.bytes, 0) / 1e6;
  // Warm-up: load libvips, JIT both paths.
  await sharpAlone(pages.slice(0, cores));
  await Promise.all(pages.slice(0, cores).map((p) => new ImagePreparer(settingsFor(freshCache())).prepare(p)));

  let alone = Infinity;
  let cold = Infinity;
  let warm = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    alone = Math.min(alone, await sharpAlone(pages));
    const cache = freshCache();
    const preparer = new ImagePreparer(settingsFor(cache));
    cold = Math.min(cold, await timed(() => Promise.all(pages.map((p) => preparer.prepare(p)))));
    const again = new ImagePreparer(settingsFor(cache));
    warm = Math.min(warm, await timed(() => Promise.all(pages.map((p) => again.prepare(p)))));
  }

  // (d) 30 pages × 4 requests in flight at once, cold cache, data URLs built as a request body holds them.
  const requests = 4;
  const perRequest = 30;
  const preparer = new ImagePreparer(settingsFor(freshCache()));
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const inFlight = await timed(() =>
    Promise.all(
      Array.from({ length: requests }, async (_, r) => {
        const shown = Array.from({ length: perRequest }, (_, i) => pages[(r * 15 + i) % pages.length]!);
        const prepared = await Promise.all(shown.map((p) => preparer.prepare(p)));
        return prepared.map((image) => ImagePreparer.dataUrl(image)).join('').length;
      }),
    ),
  );
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);

  const rate = (seconds: number) => PAGES / seconds;
  const ratio = rate(cold) / rate(alone);
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.log(`page images: ${PAGES} × ${WIDTH}×${HEIGHT} JPEG (${sourceMb.toFixed(1)} MB), to ≤ 1,003,520 pixels, JPEG q85; ${cores} cores, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}; best of ${ROUNDS}`);
  console.log(`(a) sharp alone                ${rate(alone).toFixed(1).padStart(7)} images/s`);
  console.log(`(b) hisrag preparation, cold   ${rate(cold).toFixed(1).padStart(7)} images/s   ${ratio.toFixed(2)}× sharp alone (needs ≥ 0.80)`);
  console.log(`(c) hisrag preparation, warm   ${rate(warm).toFixed(1).padStart(7)} images/s   ${(rate(warm) / rate(alone)).toFixed(1)}× sharp alone`);
  console.log(`(d) ${perRequest} pages × ${requests} requests at once: ${inFlight.toFixed(2)} s, peak RSS ${mb(peak)} MiB (${mb(peak - baseline)} MiB above the ${mb(baseline)} MiB before)`);
  rmSync(root, { recursive: true, force: true });
  if (ratio < 0.8) process.exitCode = 1;
}

await main();
