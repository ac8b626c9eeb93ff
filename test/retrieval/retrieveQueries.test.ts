import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../../src/corpus/build.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { missingGoldChunks } from '../../src/retrieval/goldChunks.js';
import { hisragInProcess } from '../helpers/cliInProcess.js';


describe('hisrag retrieve --queries, and gold ids of dropped duplicates', () => {
  let root: string;
  let indexDir: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-queries-'));
    // d2's only chunk has d1's text: the corpus keeps d1's and maps d2's id to it.
    const docs = [
      { id: 'd1', title: '殿试', text: '殿试由皇帝亲自主持，第一名称为状元。' },
      { id: 'd2', title: '殿試', text: '殿试由皇帝亲自主持，第一名称为状元。' },
      { id: 'd3', title: '乡试', text: '乡试在省城举行，考中者称为举人。' },
      { id: 'd4', title: '会试', text: '会试在京城举行，考中者称为贡士。' },
    ];
    await writeFile(join(root, 'docs.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n'));
    const manifest = await buildCorpus({ name: 'c', builder: { name: 'json', input: join(root, 'docs.jsonl') }, out: join(root, 'corpus'), chunking: { maxSize: 100 } });
    expect(manifest.duplicateOf).toEqual({ 'c:d2:0': 'c:d1:0' });
    indexDir = join(root, 'bm25');
    await buildIndex({ corpusDir: join(root, 'corpus'), out: indexDir, retriever: 'bm25', progress: { silent: true } });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('prints one line per query with its top k, and with --gold the metrics, a dropped duplicate counting as its kept twin', async () => {
    const queries = join(root, 'queries.jsonl');
    await writeFile(
      queries,
      [
        { id: 'q1', query: '殿试由谁主持', gold: ['c:d2:0'] },
        { id: 'q2', query: '乡试在哪里举行', gold: ['c:d3:0'] },
        { id: 'q3', query: '会试' },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    const { code, stdout, stderr } = await hisragInProcess('retrieve', '--index', indexDir, '--queries', queries, '--gold', '-k', '2');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((l) => l.id)).toEqual(['q1', 'q2', 'q3']);
    for (const line of lines) expect(line.hits.length).toBeLessThanOrEqual(2);
    // q1's gold names the dropped d2: counted as d1, which BM25 ranks first (the only chunk with 殿试).
    expect(lines[0].gold).toEqual(['c:d1:0']);
    expect(lines[0].hits[0].id).toBe('c:d1:0');
    expect(lines[0].metrics).toMatchObject({ recall: 1, mrr: 1, ndcg: 1 });
    expect(lines[1].hits[0].id).toBe('c:d3:0');
    expect(lines[2].metrics).toBeUndefined();
    // Means over the two queries with gold: both found first.
    expect(stderr).toMatch(/recall@2 1\.000, nDCG@2 1\.000, MRR@2 1\.000, .*over 2 queries with gold/);
  });

  it('refuses --query and --queries together, and --gold without --queries (exit 2)', async () => {
    expect((await hisragInProcess('retrieve', '--index', indexDir, '--query', 'x', '--queries', 'q.jsonl')).code).toBe(2);
    expect((await hisragInProcess('retrieve', '--index', indexDir, '--query', 'x', '--gold')).code).toBe(2);
  });

  it('the check before a run names the kept twin of a gold id the corpus dropped', () => {
    const problems = missingGoldChunks(indexDir, [{ itemId: 'q1', chunkIds: ['c:d2:0', 'c:nowhere:0'] }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.missing).toEqual(['c:d2:0', 'c:nowhere:0']);
    // The kept twin, for the message (experiment/stages.ts) to name.
    expect(problems[0]!.twins).toEqual({ 'c:d2:0': 'c:d1:0' });
  });
});
