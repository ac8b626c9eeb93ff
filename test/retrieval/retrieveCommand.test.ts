import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureModel, writeTestCorpus } from '../index/testCorpus.js';

const run = promisify(execFile);
const BIN = resolve('bin/hisrag.mjs');
const hisrag = (...args: string[]) => run(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } });

describe('hisrag index build / hisrag retrieve', () => {
  let root: string;
  let hnswDir: string;
  let bm25Dir: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-cli-'));
    const corpus = await writeTestCorpus(join(root, 'corpus'));
    const model = await fixtureModel(join(root, 'model'));
    hnswDir = join(root, 'hnsw');
    bm25Dir = join(root, 'bm25');
    await hisrag('index', 'build', '--corpus', corpus, '--retriever', 'hnsw', '--embedder', model, '--out', hnswDir, '--M', '8');
    await hisrag('index', 'build', '--corpus', corpus, '--retriever', 'bm25', '--out', bm25Dir);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('--json prints one object per hit line with id, score, title, text and meta', async () => {
    const { stdout } = await hisrag('retrieve', '--index', hnswDir, '--query', '科举考试', '-k', '3', '--json');
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    for (const hit of lines) {
      expect(Object.keys(hit)).toEqual(expect.arrayContaining(['id', 'score', 'title', 'text', 'meta']));
      expect(typeof hit.score).toBe('number');
    }
    expect(lines[0].score).toBeGreaterThanOrEqual(lines[2].score);
  });

  it('--doc restricts the hits to one document', async () => {
    const { stdout } = await hisrag('retrieve', '--index', bm25Dir, '--query', '天下', '-k', '10', '--json', '--doc', 'book-a');
    const hits = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.id.startsWith('test:book-a:'))).toBe(true);
  });

  it('prints a readable ranked list without --json', async () => {
    const { stdout } = await hisrag('retrieve', '--index', bm25Dir, '--query', '状元', '-k', '1');
    expect(stdout).toMatch(/^1\. \[\d+\.\d{4}\] 科举 \(test:wiki-keju:1\)\n {3}殿试由皇帝亲自主持/);
  });

  it('exits 2 with a clear message for a directory that is not an index', async () => {
    const failure = await hisrag('retrieve', '--index', root, '--query', 'x').catch((error) => error);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toMatch(/hisrag: .*not an index directory/);
  });

  it('exits 2 when a dense index is requested without an embedder', async () => {
    const failure = await hisrag('index', 'build', '--corpus', join(root, 'corpus'), '--retriever', 'hnsw', '--out', join(root, 'x')).catch((e) => e);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toMatch(/--embedder .*is required/);
  });
});
