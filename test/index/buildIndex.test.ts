import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEmbedder, embedders } from '../../src/embedding/registry.js';
import type { TextEmbedder } from '../../src/embedding/types.js';
import { InputError } from '../../src/errors.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { DEFAULT_HNSW, DEFAULT_USEARCH } from '../../src/index/defaults.js';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { readIndexManifest } from '../../src/runFiles/indexManifest.js';
import { openIndex } from '../../src/index/openIndex.js';
import { CountingEmbedder } from './countingEmbedder.js';
import { indexFixture, interruptedBuild } from './indexFixture.js';
import { sampleChunks, writeTestCorpus } from './testCorpus.js';

describe('buildIndex / openIndex', () => {
  let root: string;
  let corpusDir: string;
  let spec: { name: string; model: string };
  let embedder: TextEmbedder;
  const quiet = { silent: true };
  indexFixture('hisrag-build-', (fixture) => ({ root, corpusDir, spec, embedder } = fixture));

  it('writes a complete manifest recording the embedder identity, its spec, the corpus hash and HNSW parameters', async () => {
    const out = join(root, 'hnsw');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, M: 8, efConstruction: 50, progress: quiet });
    expect(manifest.complete).toBe(true);
    expect(manifest.counts).toMatchObject({ chunks: 12, documents: 3, vectors: 12 });
    expect(manifest.embedder?.identity).toEqual(await embedder.identity());
    expect(manifest.embedder?.spec).toEqual(spec);
    expect(manifest.embedder?.space).toBe('ip');
    expect(manifest.hnsw).toMatchObject({ M: 8, efConstruction: 50 });
    expect(readIndexManifest(out)).toEqual(manifest);
  });

  it('round-trips: an opened index returns the stored chunks and their vectors', async () => {
    const out = join(root, 'roundtrip');
    await buildIndex({ corpusDir, out, retriever: 'exact', embedder: spec, embedderInstance: embedder, progress: quiet });
    const index = await openIndex(out, { embedder });
    const chunks = sampleChunks();
    expect(index.store.byLabel(3)).toMatchObject(chunks[3]!);
    const expected = await embedder.embedDocuments([`${chunks[3]!.title}\n${chunks[3]!.text}`]);
    // Stored in single precision by default: within float32 rounding of a vector embedded in another batch
    // (1e-6; f16's 2⁻¹¹ relative error would be ~1e-4 here).
    const stored = [...index.store.vector(3)!];
    expect(stored).toHaveLength(64);
    expect(index.manifest.vectorEncoding).toBe('f32');
    stored.forEach((x, i) => expect(Math.abs(x - expected[0]![i]!)).toBeLessThanOrEqual(1e-6));
    await index.close();
  });

  it('refuses to open an index with an embedder of a different identity, naming the difference', async () => {
    const out = join(root, 'mismatch');
    await buildIndex({ corpusDir, out, retriever: 'exact', embedder: spec, embedderInstance: embedder, progress: quiet });
    const other = new CountingEmbedder(embedder, { queryPrefix: '' });
    await expect(openIndex(out, { embedder: other })).rejects.toThrow(InputError);
    await expect(openIndex(out, { embedder: other })).rejects.toThrow(/queryPrefix: index has "为这个句子/);
  });

  it('re-creates the recorded embedder when opened without one', async () => {
    const out = join(root, 'recreate');
    await buildIndex({ corpusDir, out, retriever: 'exact', embedder: spec, embedderInstance: embedder, progress: quiet });
    const index = await openIndex(out);
    expect(await (await index.embedder()).identity()).toEqual(await embedder.identity());
    await index.close();
  });

  it('resumes an interrupted build without re-embedding stored chunks, giving the same content and no duplicates', async () => {
    const reference = join(root, 'reference');
    await buildIndex({ corpusDir, out: reference, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, batchSize: 5, progress: quiet });

    const out = join(root, 'interrupted');
    const first = await interruptedBuild({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, batchSize: 5, progress: quiet }, 5);
    await expect(openIndex(out)).rejects.toThrow(/incomplete/);

    const second = new CountingEmbedder(embedder);
    const manifest = await buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: second, batchSize: 5, resume: true, progress: quiet });
    expect(manifest.complete).toBe(true);
    expect(manifest.hnsw).toMatchObject({ library: 'hnswlib', M: DEFAULT_HNSW.M, efConstruction: DEFAULT_HNSW.efConstruction });
    expect(first.documentsEmbedded + second.documentsEmbedded).toBe(12);
    expect(second.documentsEmbedded).toBe(7);

    const resumed = ChunkStore.open(join(out, 'chunks.sqlite'), { readonly: true });
    const whole = ChunkStore.open(join(reference, 'chunks.sqlite'), { readonly: true });
    expect([...resumed.chunks()]).toEqual([...whole.chunks()]);
    expect([...resumed.vectors()]).toEqual([...whole.vectors()]);
    resumed.close();
    whole.close();
  });

  it('refuses an existing index directory without --resume, and --resume with different settings', async () => {
    const out = join(root, 'existing');
    await buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, M: 8, progress: quiet });
    await expect(buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, M: 8, progress: quiet })).rejects.toThrow(
      /already built/,
    );
    await expect(
      buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, M: 12, resume: true, progress: quiet }),
    ).rejects.toThrow(/different settings/);
  });

  // The embedder leaves with this file (a fork that runs several files shares the registries).
  afterAll(() => void embedders.unregister('disposal-tracking'));

  it('releases the embedder it created before the graph phase starts', async () => {
    const events: string[] = [];
    const name = 'disposal-tracking';
    embedders.register({
      name,
      description: 'the fixture model, logging its disposal (test)',
      params: z.object({ model: z.string() }),
      create: async (params) => {
        const inner = await createEmbedder({ name: 'transformers', model: params.model });
        return Object.assign(Object.create(inner) as TextEmbedder, {
          dispose: async () => {
            events.push('embedder disposed');
            await inner.dispose();
          },
        });
      },
    });
    await buildIndex({
      corpusDir, out: join(root, 'released'), retriever: 'hnsw', embedder: { name, model: spec.model }, progress: quiet,
      onPhase: (phase) => void events.push(`phase ${phase}`),
    });
    expect(events).toEqual(['phase store', 'embedder disposed', 'phase graph', 'phase tune']);
  });

  it('tunes efSearch on a held-out sample and records it with its measured recall; a given efSearch is only measured', async () => {
    const tuned = await buildIndex({ corpusDir, out: join(root, 'tuned'), retriever: 'hnsw', embedder: spec, embedderInstance: embedder, M: 8, progress: quiet });
    const tuning = tuned.hnsw!.tuning!;
    expect(tuning).toMatchObject({ tuned: true, target: 0.99, reached: true, protocol: 'held-out', sample: 1 });
    // The held-out sample is in the finished graph.
    const opened = await openIndex(join(root, 'tuned'), { embedder });
    expect((await opened.graph()).size).toBe(12);
    await opened.close();
    expect(tuned.hnsw!.efSearch).toBe(tuning.efSearch);
    expect(tuning.recall).toBeGreaterThanOrEqual(0.99);
    expect(tuning.curve.at(-1)).toEqual({ efSearch: tuning.efSearch, recall: tuning.recall });

    const fixed = await buildIndex({ corpusDir, out: join(root, 'fixed-ef'), retriever: 'hnsw', embedder: spec, embedderInstance: embedder, M: 8, efSearch: 40, progress: quiet });
    expect(fixed.hnsw!.efSearch).toBe(40);
    expect(fixed.hnsw!.tuning).toMatchObject({ tuned: false, efSearch: 40 });
  });

  it('builds a usearch graph (i8 vectors) when asked, which the hnsw retriever serves like exact search on a small index', async () => {
    const out = join(root, 'usearch');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, graphLibrary: 'usearch', progress: quiet });
    // usearch's own build defaults (DEFAULT_USEARCH), not hnswlib's 32 / 200.
    expect(manifest.hnsw).toMatchObject({ library: 'usearch', quantization: 'i8', M: DEFAULT_USEARCH.M, efConstruction: DEFAULT_USEARCH.efConstruction });
    expect([DEFAULT_USEARCH.M, DEFAULT_USEARCH.efConstruction]).not.toEqual([DEFAULT_HNSW.M, DEFAULT_HNSW.efConstruction]);
    expect(manifest.hnsw!.tuning!.reached).toBe(true);
    const { createRetrieverContext } = await import('../../src/retrieval/registry.js');
    const { createRetriever } = await import('../../src/retrieval/createRetriever.js');
    const context = createRetrieverContext({ embedder });
    const hnsw = await createRetriever({ name: 'hnsw', index: out }, context);
    const exact = await createRetriever({ name: 'exact', index: out }, context);
    for (const text of ['秦始皇统一天下', '科举考试状元']) {
      // i8 scores may swap near-ties: the same five chunks, not necessarily in the same order.
      const ids = async (retriever: typeof hnsw) => (await retriever.retrieve({ text }, 5)).map((c) => c.id).sort();
      expect(await ids(hnsw)).toEqual(await ids(exact));
    }
    await hnsw.close();
    await exact.close();
  });

  it('refuses an incomplete corpus', async () => {
    const dir = join(root, 'partial-corpus');
    await writeTestCorpus(dir);
    const { writeFile, readFile } = await import('node:fs/promises');
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, complete: false }));
    await expect(buildIndex({ corpusDir: dir, out: join(root, 'never'), retriever: 'bm25', progress: quiet })).rejects.toThrow(/incomplete/);
  });
});
