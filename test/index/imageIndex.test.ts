import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/runFiles/corpusFiles.js';
import { ClipEmbedder } from '../../src/embedding/clipEmbedder.js';
import { DataFileError, InputError } from '../../src/errors.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { openIndex } from '../../src/index/openIndex.js';
import { generateClipFixture } from '../../src/models/fixture/clipFixture.js';
import { createRetriever } from '../../src/retrieval/createRetriever.js';
import { reciprocalRankFusion } from '../../src/retrieval/fusion.js';
import type { PageImageRef } from '../../src/runFiles/pageImage.js';
import { BLUE, GREEN, PAPER, RED, writePageImages } from '../embedding/pageImageFiles.js';
import { fixtureModel, writeTestCorpus } from './testCorpus.js';

const quiet = { silent: true };

/** LongHisDoc-style page chunks (meta.page, meta.image as the longhisdoc-ocr builder writes it) and a manifest with imageDir. */
async function writeImageCorpus(dir: string, refs: PageImageRef[], texts: string[], imageDir: string): Promise<Chunk[]> {
  const chunks = refs.map((ref, i): Chunk => ({
    id: `pages:${ref.docId}-${ref.page}:0`,
    docId: ref.docId,
    title: '書',
    text: texts[i]!,
    meta: { page: ref.page, book_name: '書', image: { path: ref.path, width: ref.width, height: ref.height, bytes: ref.bytes } },
  }));
  await writeTestCorpus(dir, chunks, 'pages');
  const manifestPath = join(dir, 'manifest.json');
  await writeFile(manifestPath, JSON.stringify({ ...JSON.parse(await readFile(manifestPath, 'utf8')), imageDir }));
  return chunks;
}

describe('index of page images (documents: image)', () => {
  let root: string;
  let corpusDir: string;
  let refs: PageImageRef[];
  let spec: { name: string; model: string };
  let embedder: ClipEmbedder;
  let exactIndex: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-image-index-'));
    const imageDir = join(root, 'images');
    refs = await writePageImages(imageDir, [
      { docId: '90001', page: 1, colour: PAPER },
      { docId: '90001', page: 2, colour: RED },
      { docId: '90001', page: 3, colour: GREEN },
      { docId: '90002', page: 1, colour: BLUE },
      { docId: '90002', page: 2, colour: PAPER },
    ]);
    corpusDir = join(root, 'corpus');
    await writeImageCorpus(corpusDir, refs, ['序言', '赤壁之戰', '田園', '江海', '跋'], imageDir);
    spec = { name: 'clip', model: (await generateClipFixture({ outDir: join(root, 'clip'), seed: 11 })).dir };
    embedder = new ClipEmbedder({ model: spec.model });
    exactIndex = join(root, 'exact');
    await buildIndex({ corpusDir, out: exactIndex, retriever: 'exact', embedder: spec, documents: 'image', batchSize: 2, progress: quiet });
  });
  afterAll(async () => {
    await embedder.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('records the embedder identity, documents "image" and the image folder in the manifest', async () => {
    const index = await openIndex(exactIndex, { embedder });
    expect(index.manifest.embedder).toMatchObject({ identity: await embedder.identity(), documents: 'image', imageDir: join(root, 'images'), spec });
    expect(index.manifest.counts).toMatchObject({ chunks: 5, vectors: 5, documents: 2 });
    await index.close();
  });

  it("stores each chunk's page-image vector, not its text's", async () => {
    const index = await openIndex(exactIndex, { embedder });
    const images = await embedder.embedImages(refs);
    const texts = await embedder.embedDocuments(['書\n赤壁之戰']);
    const stored = [...index.store.vector(1)!];
    // f16 storage: relative error ≤ 2⁻¹¹.
    stored.forEach((x, i) => expect(Math.abs(x - images[1]![i]!)).toBeLessThanOrEqual(Math.abs(images[1]![i]!) * 2 ** -10 + 1e-6));
    expect(Math.max(...stored.map((x, i) => Math.abs(x - texts[0]![i]!)))).toBeGreaterThan(0.01);
    await index.close();
  });

  it.each(['exact', 'hnsw'])('%s retrieval over it embeds the text query with the text tower and returns page chunks with their page', async (kind) => {
    const dir = kind === 'exact' ? exactIndex : join(root, 'hnsw');
    if (kind === 'hnsw') await buildIndex({ corpusDir, out: dir, retriever: 'hnsw', embedder: spec, documents: 'image', progress: quiet });
    // No embedder given: the retriever re-creates the clip embedder from the index manifest's spec.
    const retriever = await createRetriever({ name: kind, index: dir });
    try {
      const hits = await retriever.retrieve({ text: '朱红的一页' }, 3);
      expect(hits[0]).toMatchObject({ docId: '90001', meta: { page: 2 }, rank: 1 });
      expect(hits.every((h) => Number.isInteger(h.meta.page) && typeof h.meta.image === 'object')).toBe(true);
      const scoped = await retriever.retrieve({ text: '蓝', docId: '90002' }, 2);
      expect(scoped.map((h) => [h.docId, h.meta.page])).toEqual([['90002', 1], ['90002', 2]]);
    } finally {
      await retriever.close();
    }
  });

  it('fuses with a BM25 child by reciprocal rank (hybrid), the image ranking and the OCR ranking each counting', async () => {
    const bm25 = join(root, 'bm25');
    await buildIndex({ corpusDir, out: bm25, retriever: 'bm25', progress: quiet });
    const children = [{ name: 'exact', index: exactIndex }, { name: 'bm25', index: bm25 }];
    const hybrid = await createRetriever({ name: 'hybrid', retrievers: children });
    const image = await createRetriever(children[0]!);
    const text = await createRetriever(children[1]!);
    try {
      const query = { text: '江海 红' };
      const fused = await hybrid.retrieve(query, 5);
      const expected = reciprocalRankFusion([await image.retrieve(query, 100), await text.retrieve(query, 100)], [1, 1], 60);
      expect(fused.map((h) => h.id)).toEqual(expected.slice(0, 5).map((h) => h.id));
      expect(fused.every((h) => typeof h.meta.page === 'number')).toBe(true);
      // The OCR hit (江海, page 1 of 90002) and the image hit (the red page) are both near the top.
      expect(fused.slice(0, 2).map((h) => `${h.docId}:${h.meta.page}`).sort()).toEqual(['90001:2', '90002:1']);
    } finally {
      await Promise.all([hybrid.close(), image.close(), text.close()]);
    }
  });

  it('refuses a chunk without its page image, naming the chunk', async () => {
    const dir = join(root, 'no-image-corpus');
    const chunks = await writeImageCorpus(dir, refs, ['一', '二', '三', '四', '五'], join(root, 'images'));
    delete chunks[3]!.meta.image;
    await writeTestCorpus(dir, chunks, 'pages');
    const manifestPath = join(dir, 'manifest.json');
    await writeFile(manifestPath, JSON.stringify({ ...JSON.parse(await readFile(manifestPath, 'utf8')), imageDir: join(root, 'images') }));
    const build = buildIndex({ corpusDir: dir, out: join(root, 'no-image'), retriever: 'exact', embedder: spec, documents: 'image', progress: quiet });
    await expect(build).rejects.toThrow(DataFileError);
    await expect(buildIndex({ corpusDir: dir, out: join(root, 'no-image-2'), retriever: 'exact', embedder: spec, documents: 'image', progress: quiet })).rejects.toThrow(
      /chunk "pages:90002-1:0" \(document 90002\) has no meta\.image/,
    );
  });

  it('refuses a corpus without an image folder, and an embedder that embeds text only', async () => {
    const textCorpus = await writeTestCorpus(join(root, 'text-corpus'));
    await expect(buildIndex({ corpusDir: textCorpus, out: join(root, 'x1'), retriever: 'exact', embedder: spec, documents: 'image', progress: quiet })).rejects.toThrow(/no imageDir/);
    const textSpec = { name: 'transformers', model: await fixtureModel(join(root, 'text-model')) };
    await expect(buildIndex({ corpusDir, out: join(root, 'x2'), retriever: 'exact', embedder: textSpec, documents: 'image', progress: quiet })).rejects.toThrow(InputError);
    await expect(buildIndex({ corpusDir, out: join(root, 'x3'), retriever: 'bm25', documents: 'image', progress: quiet })).rejects.toThrow(/dense index/);
  });
});
