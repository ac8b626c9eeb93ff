import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AnswerDetail, RunListEntry } from './api.js';
import { answerKeys } from './answerQueries.js';
import { clientAssets, indexHtml } from './clientBuild.js';
import { pageImageFile, thumbnailOf } from './pageImages.js';
import { cellFileKey, chunkOf, type BundleRunFile } from './queries.js';
import { RunStore } from './runStore.js';

/** Answers per answer-page file of a bundle (`i<n>.js`). */
const ANSWERS_PER_FILE = 10;

/** JSON as a JavaScript expression safe inside any script: `<`, U+2028 and U+2029 escaped. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * `hisrag view --bundle`: the viewer as a static site that opens from `file://`: the runs' data split
 * per condition (`data/r<run>/c<n>.js`: table rows) and per group of answers (`i<n>.js`: answer
 * pages), loaded on demand as scripts; of the page images, only the thumbnails (`thumbs/<n>.jpg`).
 */
export async function writeBundle(paths: string[], outDir: string, options: { cacheDir?: string } = {}): Promise<{ runs: number; answers: number; thumbnails: number; index: string }> {
  const out = resolve(outDir);
  const store = new RunStore(paths, { cacheDir: options.cacheDir });
  try {
    await store.scan(true);
    await store.whenAllIndexed();
    const assets = await clientAssets();
    mkdirSync(join(out, 'data'), { recursive: true });
    writeFileSync(join(out, 'index.html'), indexHtml({ bundle: true, title: 'hisrag view (bundle)' }));
    writeFileSync(join(out, 'app.js'), assets.js);
    writeFileSync(join(out, 'app.css'), assets.css);
    const runs: RunListEntry[] = [];
    const folders: Record<string, string> = {};
    let answers = 0;
    let thumbnails = 0;
    const data = (folder: string, name: string, value: unknown) =>
      writeFileSync(join(out, 'data', folder, `${name}.js`), `__hisragData(${scriptJson(`${folder}/${name}`)},${scriptJson(value)});\n`);
    for (const [i, id] of store.ids().entries()) {
      const run = store.get(id)!;
      const folder = `r${i}`;
      mkdirSync(join(out, 'data', folder), { recursive: true });
      const detail = (await store.run(id))!;
      const cellFiles: Record<string, number> = {};
      detail.cells.forEach((cell, n) => {
        cellFiles[cellFileKey(cell.model, cell.condition)] = n;
        data(folder, `c${n}`, run.bundleRows(cell.model, cell.condition));
      });
      const keys = answerKeys(run.cache.db);
      const chunks = Math.max(1, Math.ceil(keys.length / ANSWERS_PER_FILE));
      const byChunk: string[][] = Array.from({ length: chunks }, () => []);
      for (const key of keys) byChunk[chunkOf(key, chunks)]!.push(key);
      const imageDirs = run.files.imageDirs();
      const thumbFiles = new Map<string, string | null>();
      for (const [n, list] of byChunk.entries()) {
        const pages: Record<string, AnswerDetail> = {};
        for (const key of list) {
          const page = run.answer(key);
          if (!page) continue;
          for (const image of page.images) {
            if (image.dir === null) continue;
            const imageKey = `${image.dir}\u0000${image.path}`;
            if (!thumbFiles.has(imageKey)) {
              const source = pageImageFile(imageDirs[image.dir]!, image.path);
              let name: string | null = null;
              if (source) {
                mkdirSync(join(out, 'data', folder, 'thumbs'), { recursive: true });
                name = `data/${folder}/thumbs/${thumbFiles.size}.jpg`;
                writeFileSync(join(out, name), await thumbnailOf(source.file));
                thumbnails++;
              }
              thumbFiles.set(imageKey, name);
            }
            const thumbFile = thumbFiles.get(imageKey);
            if (thumbFile) image.thumbFile = thumbFile;
          }
          pages[key] = page;
        }
        data(folder, `i${n}`, pages);
      }
      const file: BundleRunFile = { detail: { ...detail, report: false }, cellFiles, chunks };
      data(folder, 'run', file);
      runs.push(detail.run);
      folders[id] = folder;
      answers += keys.length;
    }
    writeFileSync(join(out, 'data', 'runs.js'), `window.__HISRAG_BUNDLE__=${scriptJson({ runs, folders })};\n`);
    return { runs: runs.length, answers, thumbnails, index: join(out, 'index.html') };
  } finally {
    store.close();
  }
}
