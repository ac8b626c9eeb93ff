import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/runFiles/corpusFiles.js';
import type { TextEmbedder } from '../../src/embedding/types.js';
import { InputError } from '../../src/errors.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { openLanceTable } from '../../src/index/lancedb/table.js';
import { readIndexManifest } from '../../src/runFiles/indexManifest.js';
import { openIndex } from '../../src/index/openIndex.js';
import { createRetrieverContext } from '../../src/retrieval/registry.js';
import { createRetriever } from '../../src/retrieval/createRetriever.js';
import { runCli } from '../helpers/runCli.js';
import { CountingEmbedder } from './countingEmbedder.js';
import { indexFixture, interruptedBuild } from './indexFixture.js';
import { sampleChunks, writeTestCorpus } from './testCorpus.js';

describe('lancedb index', () => {
  let root: string;
  let corpusDir: string;
  let spec: { name: string; model: string };
  let embedder: TextEmbedder;
  let exactIndex: string;
  const quiet = { silent: true };
  const queries = ['科举考试', '殿试由谁主持', '匈奴', '西域诸国', '项羽'];
  indexFixture('hisrag-lancedb-', (fixture) => ({ root, corpusDir, spec, embedder } = fixture));
  beforeAll(async () => {
    exactIndex = join(root, 'exact');
    await buildIndex({ corpusDir, out: exactIndex, retriever: 'exact', embedder: spec, embedderInstance: embedder, vectorEncoding: 'f32', progress: quiet });
  });

  it('stores chunks and vectors in a LanceDB table inside the index directory, with a complete manifest', async () => {
    const out = join(root, 'built');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'lancedb', embedder: spec, embedderInstance: embedder, progress: quiet });
    expect(manifest).toMatchObject({
      kind: 'lancedb',
      complete: true,
      counts: { chunks: 12, documents: 3, vectors: 12 },
      lancedb: { uri: 'lancedb', table: 'chunks', distance: 'dot', vectorIndex: 'none' },
      embedder: { spec, passage: 'title+text' },
    });
    expect(existsSync(join(out, 'lancedb', 'chunks.lance'))).toBe(true);
    expect(existsSync(join(out, 'chunks.sqlite'))).toBe(false);
    const table = await openLanceTable(out, manifest.lancedb!);
    expect(await table.countRows()).toBe(12);
    // Superseded versions (one per batch, compaction, indexes) are cleaned up: one copy of the data.
    expect(await table.listVersions()).toHaveLength(1);
    table.close();
  });

  it('ranks like exact search over the same vectors (no vector index below the IVF-PQ threshold)', async () => {
    const out = join(root, 'built');
    const context = createRetrieverContext({ embedder });
    const lance = await createRetriever({ name: 'lancedb', index: out }, context);
    const exact = await createRetriever({ name: 'exact', index: exactIndex }, context);
    for (const text of queries) {
      const [a, b] = [await lance.retrieve({ text }, 5), await exact.retrieve({ text }, 5)];
      expect(a.map((hit) => hit.id)).toEqual(b.map((hit) => hit.id));
      a.forEach((hit, i) => expect(hit.score).toBeCloseTo(b[i]!.score, 5));
      expect(a.map((hit) => hit.rank)).toEqual([1, 2, 3, 4, 5]);
    }
    expect(lance.describe()).toMatchObject({ name: 'lancedb', lancedb: { nprobes: 32, refineFactor: 10 } });
    await lance.close();
    await exact.close();
  });

  it('restricts a query to one document, and names an unknown document', async () => {
    const lance = await createRetriever({ name: 'lancedb', index: join(root, 'built') }, createRetrieverContext({ embedder }));
    const hits = await lance.retrieve({ text: '天下', docId: 'book-b' }, 10);
    expect(hits.map((hit) => hit.docId)).toEqual(['book-b', 'book-b', 'book-b']);
    expect(hits[0]!.meta).toEqual({ page: expect.any(Number), book_name: '漢書' });
    await expect(lance.retrieve({ text: '天下', docId: 'no-such-book' }, 10)).rejects.toThrow(/no chunks of document "no-such-book"/);
    await lance.close();
  });

  it('resumes an interrupted build without re-embedding stored chunks, giving the same rows', async () => {
    const out = join(root, 'interrupted');
    const first = await interruptedBuild({ corpusDir, out, retriever: 'lancedb', embedder: spec, embedderInstance: embedder, batchSize: 5, progress: quiet }, 5);
    await expect(createRetriever({ name: 'lancedb', index: out })).rejects.toThrow(/incomplete/);

    const second = new CountingEmbedder(embedder);
    const manifest = await buildIndex({ corpusDir, out, retriever: 'lancedb', embedder: spec, embedderInstance: second, batchSize: 5, resume: true, progress: quiet });
    expect(manifest.complete).toBe(true);
    expect(second.documentsEmbedded).toBe(7);
    expect(first.documentsEmbedded + second.documentsEmbedded).toBe(12);

    const table = await openLanceTable(out, manifest.lancedb!);
    const rows = (await table.query().select(['label', 'id']).toArray()) as { label: number; id: string }[];
    table.close();
    expect(rows.map((row) => row.label).sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(sampleChunks().map((chunk) => chunk.id)));
  });

  it('refuses an existing index without --resume, and --resume with different settings', async () => {
    const out = join(root, 'built');
    await expect(buildIndex({ corpusDir, out, retriever: 'lancedb', embedder: spec, embedderInstance: embedder, progress: quiet })).rejects.toThrow(
      /already built/,
    );
    const interrupted = join(root, 'interrupted-2');
    const controller = new AbortController();
    await expect(
      buildIndex({
        corpusDir, out: interrupted, retriever: 'lancedb', embedder: spec, embedderInstance: embedder, batchSize: 5, progress: quiet,
        signal: controller.signal,
        onBatchStored: () => controller.abort(),
      }),
    ).rejects.toThrow();
    await expect(
      buildIndex({
        corpusDir, out: interrupted, retriever: 'lancedb', embedder: spec, embedderInstance: embedder, resume: true, progress: quiet,
        lancedb: { nprobes: 7 },
      }),
    ).rejects.toThrow(/different settings/);
  });

  it('is refused by openIndex with a message that names the lancedb retriever', async () => {
    await expect(openIndex(join(root, 'built'))).rejects.toThrow(InputError);
    await expect(openIndex(join(root, 'built'))).rejects.toThrow(/retriever lancedb/);
  });

  it('builds an IVF-PQ vector index on request and finds most of the exact top 10 with it', async () => {
    const many: Chunk[] = Array.from({ length: 600 }, (_, i) => ({
      id: `big:${i}`,
      docId: `doc-${i % 40}`,
      title: `第${i % 40}卷`,
      text: `${'天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏'.slice(i % 17, (i % 17) + 5)}${i}年${'秦汉魏晋隋唐宋元明清'[i % 10]}`,
      meta: {},
    }));
    const bigCorpus = await writeTestCorpus(join(root, 'big-corpus'), many, 'big');
    const out = join(root, 'ivfpq');
    const manifest = await buildIndex({
      corpusDir: bigCorpus, out, retriever: 'lancedb', embedder: spec, embedderInstance: embedder, batchSize: 200, progress: quiet,
      lancedb: { vectorIndex: 'ivf-pq', numPartitions: 4, numSubVectors: 8 },
    });
    expect(manifest.lancedb).toMatchObject({ vectorIndex: 'ivf-pq', numPartitions: 4, numSubVectors: 8 });
    const table = await openLanceTable(out, manifest.lancedb!);
    const indices = await table.listIndices();
    table.close();
    expect(indices.map((index) => index.columns[0])).toEqual(expect.arrayContaining(['vector', 'docId']));

    const exactOut = join(root, 'ivfpq-exact');
    await buildIndex({ corpusDir: bigCorpus, out: exactOut, retriever: 'exact', embedder: spec, embedderInstance: embedder, batchSize: 200, progress: quiet });
    const context = createRetrieverContext({ embedder });
    const lance = await createRetriever({ name: 'lancedb', index: out }, context);
    const exact = await createRetriever({ name: 'exact', index: exactOut }, context);
    let found = 0;
    for (const text of queries) {
      const truth = new Set((await exact.retrieve({ text }, 10)).map((hit) => hit.id));
      found += (await lance.retrieve({ text }, 10)).filter((hit) => truth.has(hit.id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.8);
    await lance.close();
    await exact.close();
  });

  it('`hisrag index build --retriever lancedb` builds, resumes a complete build as a no-op, and `hisrag retrieve` queries it', async () => {
    const out = join(root, 'cli');
    const build = ['index', 'build', '--corpus', corpusDir, '--retriever', 'lancedb', '--embedder', spec.model, '--out', out];
    const first = await runCli(build);
    expect(first.stderr).not.toMatch(/Error/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/lancedb, 12 chunks from 3 documents, 12 vectors/);
    const again = await runCli([...build, '--resume']);
    expect(again.code).toBe(0);
    const query = await runCli(['retrieve', '--index', out, '--query', '张骞', '-k', '3', '--doc', 'book-b', '--json']);
    expect(query.code).toBe(0);
    const hits = query.stdout.trim().split('\n').map((line) => JSON.parse(line) as { docId: string; rank: number });
    expect(hits.map((hit) => [hit.docId, hit.rank])).toEqual([['book-b', 1], ['book-b', 2], ['book-b', 3]]);
    const bad = await runCli(['index', 'build', '--corpus', corpusDir, '--retriever', 'lancedb', '--out', join(root, 'cli-bad'), '--vector-index', 'hnsw', '--embedder', spec.model]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--vector-index/);
  }, 60_000);

  it('`hisrag index build --retriever lancedb` stopped with Ctrl-C keeps its batches, and --resume finishes it', async () => {
    const many: Chunk[] = Array.from({ length: 3000 }, (_, i) => ({ id: `many:${i}`, docId: `doc-${i % 50}`, title: '卷', text: `第${i}条 天下大势`, meta: {} }));
    const manyCorpus = await writeTestCorpus(join(root, 'many-corpus'), many, 'many');
    const out = join(root, 'cli-interrupted');
    const build = ['index', 'build', '--corpus', manyCorpus, '--retriever', 'lancedb', '--embedder', spec.model, '--out', out, '--batch-size', '10'];
    const versions = join(out, 'lancedb', 'chunks.lance', '_versions');
    const interrupted = await runCli(build, {
      onSpawn: (child) => {
        // Ctrl-C once a few batches are committed (each add is a LanceDB version, one `.manifest`;
        // the folder also holds `latest_version_hint.json` and files being written).
        const poll = setInterval(() => {
          if (existsSync(versions) && readdirSync(versions).filter((name) => name.endsWith('.manifest')).length >= 4) {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    });
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(/--resume/);
    const partial = readIndexManifest(out);
    expect(partial?.complete).toBe(false);
    const table = await openLanceTable(out, partial!.lancedb!);
    const stored = await table.countRows();
    table.close();
    expect(stored).toBeGreaterThanOrEqual(30);
    expect(stored).toBeLessThan(3000);

    const resumed = await runCli([...build, '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/lancedb, 3000 chunks from 50 documents, 3000 vectors/);
    const query = await runCli(['retrieve', '--index', out, '--query', '第2999条', '-k', '1', '--json']);
    expect(query.code).toBe(0);
    expect(JSON.parse(query.stdout).id).toMatch(/^many:/);
  }, 120_000);
});
