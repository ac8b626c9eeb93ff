import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIPTextModelWithProjection, CLIPVisionModelWithProjection } from '@huggingface/transformers';
import { ClipEmbedder } from '../../src/embedding/clipEmbedder.js';
import { createEmbedder } from '../../src/embedding/registry.js';
import { isImageEmbedder } from '../../src/embedding/types.js';
import { DataFileError, ConfigError } from '../../src/errors.js';
import { generateClipFixture } from '../../src/models/fixture/clipFixture.js';
import type { PageImageRef } from '../../src/runFiles/pageImage.js';
import { BLUE, GREEN, PAPER, RED, writePageImages } from './pageImageFiles.js';

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));

describe('clip embedder on the generated CLIP fixture', () => {
  let root: string;
  let modelDir: string;
  let pages: PageImageRef[];
  let embedder: ClipEmbedder;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hisrag-clip-'));
    modelDir = (await generateClipFixture({ outDir: join(root, 'clip'), seed: 3 })).dir;
    pages = await writePageImages(join(root, 'images'), [
      { docId: 'b1', page: 1, colour: RED },
      { docId: 'b1', page: 2, colour: GREEN },
      { docId: 'b1', page: 3, colour: BLUE },
      { docId: 'b2', page: 1, colour: PAPER },
    ]);
    embedder = new ClipEmbedder({ model: modelDir, batchSize: 3 });
  });
  afterAll(async () => {
    await embedder?.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it('writes the hub layout of a CLIP export, marked as a fixture, the same bytes for the same seed', async () => {
    const config = JSON.parse(await readFile(join(modelDir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ model_type: 'clip', projection_dim: 64, hisrag_fixture: { kind: 'clip', seed: 3 } });
    const again = await generateClipFixture({ outDir: join(root, 'clip-again'), seed: 3 });
    // Compared by hash: a deep equality over megabytes of bytes takes vitest minutes.
    const hash = async (dir: string, file: string) => createHash('sha256').update(await readFile(join(dir, file))).digest('hex');
    for (const file of again.files) expect(await hash(again.dir, file), file).toBe(await hash(modelDir, file));
    const other = await generateClipFixture({ outDir: join(root, 'clip-other'), seed: 4 });
    expect(await hash(other.dir, 'onnx/vision_model.onnx')).not.toBe(await hash(modelDir, 'onnx/vision_model.onnx'));
  });

  it('loads through transformers.js CLIP tower classes, which give text_embeds and image_embeds', async () => {
    const options = { local_files_only: true, dtype: 'fp32' as const };
    const text = await CLIPTextModelWithProjection.from_pretrained(modelDir, options);
    const vision = await CLIPVisionModelWithProjection.from_pretrained(modelDir, options);
    expect(text.sessions.model!.outputNames).toEqual(['text_embeds']);
    expect(vision.sessions.model!.inputNames).toEqual(['pixel_values']);
    await text.dispose();
    await vision.dispose();
  });

  it('is registered as `clip` and can embed images', async () => {
    const created = await createEmbedder({ name: 'clip', model: modelDir });
    expect(isImageEmbedder(created)).toBe(true);
    expect(await created.identity()).toEqual({ model: modelDir, dimension: 64, pooling: 'model', normalize: true, queryPrefix: '', documentPrefix: '' });
    await created.dispose();
  });

  it('embeds page images into unit vectors of the model dimension, the same on every call and in any batch', async () => {
    const vectors = await embedder.embedImages(pages);
    expect(vectors).toHaveLength(4);
    for (const vector of vectors) {
      expect(vector).toHaveLength(64);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
    expect(await embedder.embedImages([pages[2]!])).toEqual([vectors[2]]);
    expect(new Set(vectors.map((v) => v.join(','))).size).toBe(4);
  });

  it('ranks pages for a text query through the text tower: the fixture aligns colour words with page colour', async () => {
    const vectors = await embedder.embedImages(pages);
    const best = async (query: string) => {
      const q = await embedder.embedQuery(query);
      const scores = vectors.map((v) => dot(q, v));
      return pages[scores.indexOf(Math.max(...scores))]!.page;
    };
    expect(await best('红色的书页')).toBe(1);
    expect(await best('绿')).toBe(2);
    expect(await best('藍色封面')).toBe(3);
  });

  it('refuses a missing page image and a corrupt one, naming document and page', async () => {
    const missing = { ...pages[0]!, path: 'b1/page_9.jpg', page: 9 };
    await expect(embedder.embedImages([missing])).rejects.toThrow(DataFileError);
    await expect(embedder.embedImages([missing])).rejects.toThrow(/document b1 page 9 .*page_9\.jpg.*missing/);
    await writeFile(join(root, 'images', 'b1', 'page_8.jpg'), Buffer.from('not a jpeg at all'));
    await expect(embedder.embedImages([{ ...pages[0]!, path: 'b1/page_8.jpg', page: 8 }])).rejects.toThrow(/document b1 page 8 .*not a readable image/);
  });

  it('says how to generate a model when the directory lacks the towers', async () => {
    const broken = new ClipEmbedder({ model: join(root, 'nothing-here') });
    await expect(broken.identity()).rejects.toThrow(ConfigError);
    await expect(broken.identity()).rejects.toThrow(/hisrag model fixture --kind clip/);
  });

  it('embeds 40 pages in well under a second', async () => {
    const many = Array.from({ length: 40 }, (_, i) => pages[i % 4]!);
    const started = performance.now();
    await embedder.embedImages(many);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
