import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetrieverContext } from '../../src/retrieval/registry.js';
import { createRetriever } from '../../src/retrieval/createRetriever.js';
import { placeGold } from '../../src/retrieval/retrievers/oracleNoise.js';
import { seededRandom } from '../../src/retrieval/seededRandom.js';
import type { Retriever } from '../../src/retrieval/types.js';
import { buildTestIndexes, type BuiltIndexes } from './builtIndexes.js';

describe('control retrievers', () => {
  let root: string;
  let built: BuiltIndexes;
  const open: Retriever[] = [];
  const make = async (spec: { name: string } & Record<string, unknown>, seed = 1) => {
    const retriever = await createRetriever(spec, createRetrieverContext({ seed, embedder: built.embedder }));
    open.push(retriever);
    return retriever;
  };
  const ids = (hits: { id: string }[]) => hits.map((h) => h.id);
  const goldIds = ['test:wiki-keju:1', 'test:book-a:0'];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-controls-'));
    built = await buildTestIndexes(root);
  });
  afterAll(async () => {
    for (const retriever of open) await retriever.close();
    await built.embedder.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('oracle returns the gold chunk ids in order, score 1, at most k', async () => {
    const oracle = await make({ name: 'oracle', index: built.bm25 });
    const hits = await oracle.retrieve({ text: 'q', gold: { chunkIds: goldIds } }, 10);
    expect(ids(hits)).toEqual(goldIds);
    expect(hits.map((h) => h.score)).toEqual([1, 1]);
    expect(ids(await oracle.retrieve({ text: 'q', gold: { chunkIds: goldIds } }, 1))).toEqual([goldIds[0]]);
  });

  it('oracle returns the chunks of the gold pages of the gold document', async () => {
    const oracle = await make({ name: 'oracle', index: built.bm25 });
    const hits = await oracle.retrieve({ text: 'q', gold: { pages: [3, 1], docId: 'book-a' } }, 10);
    expect(ids(hits)).toEqual(['test:book-a:0', 'test:book-a:2']);
    const viaQueryDoc = await oracle.retrieve({ text: 'q', docId: 'book-b', gold: { pages: [2] } }, 10);
    expect(ids(viaQueryDoc)).toEqual(['test:book-b:1']);
  });

  it('oracle finds gold pages of a book stored one document per page, a page window only when all its pages are gold', async () => {
    const { writeTestCorpus } = await import('../index/testCorpus.js');
    const { buildIndex } = await import('../../src/index/buildIndex.js');
    const page = (n: number) => ({ id: `lhd:bk-p${n}:0`, docId: `bk-p${n}`, title: '書', text: `第${n}頁`, meta: { doc_id: 'bk', page: n, pages: [n] } });
    const window = { id: 'lhd:bk-p1-2:0', docId: 'bk-p1-2', title: '書', text: '第1頁第2頁', meta: { doc_id: 'bk', page: 1, pages: [1, 2], window: 2 } };
    const corpus = await writeTestCorpus(join(root, 'lhd-corpus'), [page(1), page(2), page(3), window]);
    await buildIndex({ corpusDir: corpus, out: join(root, 'lhd-bm25'), retriever: 'bm25', progress: { silent: true } });
    const oracle = await make({ name: 'oracle', index: join(root, 'lhd-bm25') });
    expect(ids(await oracle.retrieve({ text: 'q', docId: 'bk', gold: { pages: [2] } }, 10))).toEqual(['lhd:bk-p2:0']);
    expect(ids(await oracle.retrieve({ text: 'q', docId: 'bk', gold: { pages: [1, 2] } }, 10))).toEqual(['lhd:bk-p1:0', 'lhd:bk-p2:0', 'lhd:bk-p1-2:0']);
  });

  it('oracle returns nothing for an item without gold evidence', async () => {
    const oracle = await make({ name: 'oracle', index: built.bm25 });
    expect(await oracle.retrieve({ text: 'q', itemId: 'x' }, 5)).toEqual([]);
  });

  it('random draws k distinct chunks, the same for the same seed and item, nested across k', async () => {
    const random = await make({ name: 'random', index: built.bm25 }, 7);
    const a = await random.retrieve({ text: 'q', itemId: 'item-1' }, 4);
    expect(new Set(ids(a)).size).toBe(4);
    expect(ids(await random.retrieve({ text: 'other text', itemId: 'item-1' }, 4))).toEqual(ids(a));
    expect(ids(await random.retrieve({ text: 'q', itemId: 'item-1' }, 5)).slice(0, 4)).toEqual(ids(a));
    const again = await make({ name: 'random', index: built.bm25 }, 7);
    expect(ids(await again.retrieve({ text: 'q', itemId: 'item-1' }, 4))).toEqual(ids(a));
  });

  it('random draws differ between items and between seeds', async () => {
    const random = await make({ name: 'random', index: built.bm25 }, 7);
    const draws = new Set<string>();
    for (let i = 0; i < 5; i++) draws.add(ids(await random.retrieve({ text: 'q', itemId: `item-${i}` }, 4)).join());
    expect(draws.size).toBeGreaterThan(1);
    const otherSeed = await make({ name: 'random', index: built.bm25 }, 8);
    const bySeed = new Set<string>();
    for (let i = 0; i < 5; i++) bySeed.add(ids(await otherSeed.retrieve({ text: 'q', itemId: `item-${i}` }, 4)).join());
    expect([...bySeed]).not.toEqual([...draws]);
  });

  it('random within a document draws only its chunks', async () => {
    const random = await make({ name: 'random', index: built.bm25 });
    const hits = await random.retrieve({ text: 'q', itemId: 'a', docId: 'book-b' }, 10);
    expect(ids(hits).sort()).toEqual(['test:book-b:0', 'test:book-b:1', 'test:book-b:2']);
  });

  it.each([
    ['first', [0, 1]],
    ['last', [8, 9]],
    ['middle', [4, 5]],
  ] as const)('oracle+noise places the gold %s among k chunks of random noise', async (goldPosition, positions) => {
    const noisy = await make({ name: 'oracle+noise', index: built.bm25, goldPosition });
    const hits = await noisy.retrieve({ text: 'q', itemId: 'i', gold: { chunkIds: goldIds } }, 10);
    expect(hits).toHaveLength(10);
    expect(new Set(ids(hits)).size).toBe(10);
    expect(positions.map((p) => hits[p]!.id)).toEqual(goldIds);
    expect(hits.filter((h) => h.score === 1)).toHaveLength(2);
  });

  it('oracle+noise at random positions is deterministic per item and keeps the gold order', async () => {
    const noisy = await make({ name: 'oracle+noise', index: built.bm25, goldPosition: 'random' });
    const query = { text: 'q', itemId: 'i', gold: { chunkIds: goldIds } };
    const a = await noisy.retrieve(query, 8);
    expect(ids(await noisy.retrieve(query, 8))).toEqual(ids(a));
    expect(ids(a).filter((id) => goldIds.includes(id))).toEqual(goldIds);
  });

  it('placeGold at random spreads gold over positions across draws', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 30; i++) seen.add(placeGold(['G'], ['n', 'n', 'n', 'n'], 'random', seededRandom(1, `k${i}`)).indexOf('G'));
    expect(seen.size).toBeGreaterThan(2);
  });

  it('oracle+noise with hard negatives pads with the base retriever’s best non-gold chunks', async () => {
    const base = await make({ name: 'bm25', index: built.bm25 });
    // Every 科举 chunk carries the term in its title, so the base returns all five.
    const query = { text: '科举殿试', itemId: 'h', gold: { chunkIds: ['test:wiki-keju:1'] } };
    const baseIds = ids(await base.retrieve(query, 10));
    expect(baseIds.length).toBeGreaterThanOrEqual(4);
    const expectedNoise = baseIds.filter((id) => id !== 'test:wiki-keju:1').slice(0, 3);
    const noisy = await make({ name: 'oracle+noise', index: built.bm25, noise: 'hard', base: { name: 'bm25', index: built.bm25 }, goldPosition: 'last' });
    const hits = await noisy.retrieve(query, 4);
    expect(ids(hits)).toEqual([...expectedNoise, 'test:wiki-keju:1']);
    expect(noisy.depthDependent).toBe(true);
  });

  it('oracle+noise requires a base retriever for hard negatives', async () => {
    await expect(make({ name: 'oracle+noise', index: built.bm25, noise: 'hard' })).rejects.toThrow(/retriever\.base: hard negatives need a base/);
  });
});
