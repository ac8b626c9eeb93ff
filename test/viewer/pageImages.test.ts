import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerDetail, RunDetail } from '../../src/viewer/api.js';
import { writeBundle } from '../../src/viewer/bundle.js';
import { imagesOf } from '../../src/viewer/answerQueries.js';
import { THUMBNAIL_SIDE } from '../../src/viewer/pageImages.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { DOC_ID, writeImageRun, type ImageRun } from './imageRunFixture.js';

/** A raw GET with the path exactly as given (no client-side normalisation of `..`), body as bytes. */
function raw(base: string, path: string): Promise<{ status: number; type: string; body: Buffer }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hisrag view: the page images an answer showed', () => {
  let run: ImageRun;
  let viewer: ViewerServer;
  let secretJpeg: Buffer;
  const json = async <T>(path: string): Promise<T> => {
    const response = await raw(viewer.url, path);
    expect(response.status, path).toBe(200);
    return JSON.parse(response.body.toString('utf8')) as T;
  };
  const answer = (condition: string, item: string) => json<AnswerDetail>(`/api/runs/image-run/answer?key=${encodeURIComponent(`m|${condition}|longhisdoc:${item}`)}`);

  beforeAll(async () => {
    run = await writeImageRun();
    // A JPEG outside the image folder, reached by a link inside it; a text file inside it.
    secretJpeg = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#f00' } }).jpeg().toBuffer();
    writeFileSync(join(run.root, 'secret.jpg'), secretJpeg);
    symlinkSync(join(run.root, 'secret.jpg'), join(run.imageDir, DOC_ID, 'page_9.jpg'));
    writeFileSync(join(run.imageDir, DOC_ID, 'notes.txt'), 'notes');
    viewer = await startViewer([join(run.root, 'runs')], { cacheDir: join(run.root, 'view-cache') });
  }, 60_000);
  afterAll(async () => {
    await viewer?.close();
    rmSync(run.root, { recursive: true, force: true });
  });

  it("lists an answer's page images in prompt order with document, page and the evidence pages marked", async () => {
    const q3 = await answer('image-input', 'q3');
    expect(q3.images.map((i) => [i.dir, i.path, i.docId, i.page, i.evidence])).toEqual([
      [0, `${DOC_ID}/page_3.jpg`, DOC_ID, 3, true],
      [0, `${DOC_ID}/page_2.jpg`, DOC_ID, 2, false],
    ]);
    expect((await answer('image-input', 'q1')).images.map((i) => i.page)).toEqual([1, 2, 3]);
    expect((await answer('ocr-input', 'q1')).images).toEqual([]);
  });

  it("marks evidence from the record's own evidence pages when it carries them, the benchmark's otherwise", () => {
    const record = run.records.find((r) => r.key === 'm|image-input|longhisdoc:q1')!;
    const stored = { docId: DOC_ID, evidencePages: [1] };
    expect(imagesOf(record, stored, [run.imageDir]).map((i) => i.evidence)).toEqual([true, false, false]);
    expect(imagesOf({ ...record, evidence: { docId: DOC_ID, pages: [2, 3] } }, stored, [run.imageDir]).map((i) => i.evidence)).toEqual([false, true, true]);
    expect(imagesOf({ ...record, evidence: { docId: 'other', pages: [2] } }, null, [run.imageDir]).map((i) => i.evidence)).toEqual([false, false, false]);
    expect(imagesOf(record, null, []).map((i) => [i.dir, i.evidence])).toEqual([[null, false], [null, false], [null, false]]);
  });

  it('serves the full-size image as the file, from the folder the manifest lists', async () => {
    const response = await raw(viewer.url, `/api/runs/image-run/images/0/${DOC_ID}/page_2.jpg`);
    expect(response.status).toBe(200);
    expect(response.type).toBe('image/jpeg');
    expect(response.body.equals(readFileSync(join(run.imageDir, DOC_ID, 'page_2.jpg')))).toBe(true);
  });

  it('serves thumbnails made with sharp: a JPEG whose longest side is the thumbnail size, smaller than the original', async () => {
    for (const page of [1, 2, 3]) {
      const response = await raw(viewer.url, `/api/runs/image-run/thumbs/0/${DOC_ID}/page_${page}.jpg`);
      expect(response.status).toBe(200);
      expect(response.type).toBe('image/jpeg');
      const meta = await sharp(response.body).metadata();
      expect([meta.format, Math.max(meta.width!, meta.height!)]).toEqual(['jpeg', THUMBNAIL_SIDE]);
      expect(meta.height).toBe(THUMBNAIL_SIDE); // 800×1200 → 160×240
      expect(response.body.length).toBeLessThan(run.pageBytes[page]! / 2);
    }
    // The same thumbnail again comes from memory, unchanged.
    const a = await raw(viewer.url, `/api/runs/image-run/thumbs/0/${DOC_ID}/page_1.jpg`);
    const b = await raw(viewer.url, `/api/runs/image-run/thumbs/0/${DOC_ID}/page_1.jpg`);
    expect(a.body.equals(b.body)).toBe(true);
  });

  it('refuses traversal, encoded traversal, absolute paths, links leaving the folder, other files and folders the manifest does not list', async () => {
    const paths = [
      `/api/runs/image-run/images/0/../qa.json`,
      `/api/runs/image-run/images/0/${DOC_ID}/../../qa.json`,
      `/api/runs/image-run/images/0/%2e%2e/qa.json`,
      `/api/runs/image-run/thumbs/0/%2e%2e%2fsecret.jpg`,
      `/api/runs/image-run/images/0/..%2Fsecret.jpg`,
      `/api/runs/image-run/images/0/${DOC_ID}%2Fpage_1.jpg`,
      `/api/runs/image-run/images/0/..%5csecret.jpg`,
      `/api/runs/image-run/images/0//${join(run.root, 'secret.jpg').slice(1)}`,
      `/api/runs/image-run/images/0/${encodeURIComponent(join(run.root, 'secret.jpg'))}`,
      `/api/runs/image-run/images/0/./${DOC_ID}/page_1.jpg`,
      `/api/runs/image-run/images/0/${DOC_ID}/page_9.jpg`,
      `/api/runs/image-run/thumbs/0/${DOC_ID}/page_9.jpg`,
      `/api/runs/image-run/images/0/${DOC_ID}/notes.txt`,
      `/api/runs/image-run/images/0/${DOC_ID}/page_404.jpg`,
      `/api/runs/image-run/images/1/${DOC_ID}/page_1.jpg`,
      `/api/runs/image-run/images/-1/${DOC_ID}/page_1.jpg`,
      `/api/runs/image-run/images/x/${DOC_ID}/page_1.jpg`,
      `/api/runs/image-run/images/0`,
      `/api/runs/no-such-run/images/0/${DOC_ID}/page_1.jpg`,
    ];
    for (const path of paths) {
      const response = await raw(viewer.url, path);
      expect(response.status, path).toBe(404);
      expect(response.body.includes(secretJpeg), path).toBe(false);
    }
  });

  it('shows the image-against-OCR table on the run page: the summary\'s byModality', async () => {
    const detail = await json<RunDetail>('/api/runs/image-run');
    expect(detail.byModality).toHaveLength(1);
    const c = detail.byModality[0]!;
    expect([c.condition, c.against, c.overall.n]).toEqual(['image-input', 'ocr-input', 6]);
    expect(c.byGroup.evidence_modal!.text!.meanDiff).toBe(-50);
    expect(c.decomposition.helped.n).toBe(3);
  });

  it('bundles exactly the thumbnails its answers show, and no full-size image; the answer pages point at them', async () => {
    const out = mkdtempSync(join(tmpdir(), 'hisrag-image-bundle-'));
    try {
      const result = await writeBundle([join(run.root, 'runs')], out, { cacheDir: join(run.root, 'view-cache') });
      // Pages 1, 2 and 3 are shown (page 4 is in the folder but in no prompt): three thumbnails, once each.
      expect(result.thumbnails).toBe(3);
      const thumbDir = join(out, 'data', 'r0', 'thumbs');
      const files = readdirSync(thumbDir).sort();
      expect(files).toHaveLength(3);
      const all = readdirSync(out, { recursive: true }).map(String);
      expect(all.filter((f) => /\.(jpe?g|png|webp)$/.test(f)).sort()).toEqual(files.map((f) => join('data', 'r0', 'thumbs', f)).sort());
      for (const f of files) {
        const meta = await sharp(join(thumbDir, f)).metadata();
        expect(Math.max(meta.width!, meta.height!)).toBe(THUMBNAIL_SIDE);
        expect(statSync(join(thumbDir, f)).size).toBeLessThan(Math.min(...Object.values(run.pageBytes)));
      }
      // The answer pages' links name those files; each shown page maps to one file.
      const pages = readdirSync(join(out, 'data', 'r0'))
        .filter((f) => /^i\d+\.js$/.test(f))
        .flatMap((f) => {
          const text = readFileSync(join(out, 'data', 'r0', f), 'utf8');
          const value = JSON.parse(text.slice(text.indexOf(',') + 1, text.lastIndexOf(')'))) as Record<string, AnswerDetail>;
          return Object.values(value);
        });
      const byPage = new Map<number, Set<string>>();
      for (const page of pages) for (const image of page.images) (byPage.get(image.page) ?? byPage.set(image.page, new Set()).get(image.page)!).add(image.thumbFile!);
      expect([...byPage.keys()].sort()).toEqual([1, 2, 3]);
      expect([...byPage.values()].map((s) => s.size)).toEqual([1, 1, 1]);
      expect(new Set([...byPage.values()].flatMap((s) => [...s]))).toEqual(new Set(files.map((f) => `data/r0/thumbs/${f}`)));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
