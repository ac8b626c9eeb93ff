import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../src/index/buildIndex.js';
import { fixtureModel, writeTestCorpus } from '../index/testCorpus.js';
import { hisragInProcess } from '../helpers/cliInProcess.js';

const run = promisify(execFile);
const BIN = resolve('bin/hisrag.mjs');


describe('hisrag index build / hisrag retrieve', () => {
  let root: string;
  let corpus: string;
  let hnswDir: string;
  let bm25Dir: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-cli-'));
    corpus = await writeTestCorpus(join(root, 'corpus'));
    const model = await fixtureModel(join(root, 'model'));
    hnswDir = join(root, 'hnsw');
    bm25Dir = join(root, 'bm25');
    // The real executable once, for the dense build; the rest in-process.
    await run(process.execPath, [BIN, 'index', 'build', '--corpus', corpus, '--retriever', 'hnsw', '--embedder', model, '--out', hnswDir, '--M', '8']);
    await buildIndex({ corpusDir: corpus, out: bm25Dir, retriever: 'bm25', progress: { silent: true } });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('--json prints one object per hit line with id, score, title, text and meta', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'retrieve', '--index', hnswDir, '--query', '科举考试', '-k', '3', '--json']);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    for (const hit of lines) {
      expect(Object.keys(hit)).toEqual(expect.arrayContaining(['id', 'score', 'title', 'text', 'meta']));
      expect(typeof hit.score).toBe('number');
    }
    expect(lines[0].score).toBeGreaterThanOrEqual(lines[2].score);
  });

  it('index build prints a summary and records the BM25 parameters given', async () => {
    const out = join(root, 'bm25-cli');
    const result = await hisragInProcess('index', 'build', '--corpus', corpus, '--retriever', 'bm25', '--out', out, '--k1', '1.5', '--no-bigrams');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/bm25, 12 chunks from 3 documents, \d+ terms/);
    const { readIndexManifest } = await import('../../src/runFiles/indexManifest.js');
    expect(readIndexManifest(out)?.bm25).toMatchObject({ k1: 1.5, bigrams: false });
  });

  it('--doc restricts the hits to one document', async () => {
    const { stdout } = await hisragInProcess('retrieve', '--index', bm25Dir, '--query', '天下', '-k', '10', '--json', '--doc', 'book-a');
    const hits = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.id.startsWith('test:book-a:'))).toBe(true);
  });

  it('prints a readable ranked list without --json', async () => {
    const { stdout } = await hisragInProcess('retrieve', '--index', bm25Dir, '--query', '状元', '-k', '1');
    expect(stdout).toMatch(/^1\. \[\d+\.\d{4}\] 科举 \(test:wiki-keju:1\)\n {3}殿试由皇帝亲自主持/);
  });

  it('exits 2 with a clear message for a directory that is not an index', async () => {
    const result = await hisragInProcess('retrieve', '--index', root, '--query', 'x');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/hisrag: .*not an index directory/);
  });

  it('exits 2 when a dense index is requested without an embedder', async () => {
    const result = await hisragInProcess('index', 'build', '--corpus', corpus, '--retriever', 'hnsw', '--out', join(root, 'x'));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--embedder .*is required/);
  });

  it('refuses an empty or whitespace-only query with exit 2', async () => {
    for (const query of ['', '   ', '\n']) {
      const { code, stdout, stderr } = await hisragInProcess('retrieve', '--index', bm25Dir, '--query', query);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('--query: empty');
    }
  });

  it('exits quietly when the reader of its output goes away (| head -1)', async () => {
    const { spawn } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(`"${process.execPath}" "${BIN}" retrieve --index "${bm25Dir}" --query 科举 -k 50 --json | head -1 >/dev/null; echo "\${PIPESTATUS[0]}" >&2`, {
        shell: '/bin/bash',
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => done({ code, stderr }));
    });
    expect(result.stderr).not.toMatch(/EPIPE|internal error|Error:/);
    expect(result.stderr.trim().split('\n').at(-1)).toBe('0');
  });

  it('index tune re-measures efSearch for another depth and target and records it in the manifest', async () => {
    const result = await hisragInProcess('index', 'tune', '--index', hnswDir, '-k', '5', '--target-recall', '0.9', '--sample', '3');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/efSearch +\d+ +recall@5 /);
    expect(result.stdout).toMatch(/efSearch \d+ \(tuned\): recall@5 \d\.\d{4} against exact search on 3 sampled vectors \(each excluding itself\)/);
    const manifest = JSON.parse(readFileSync(join(hnswDir, 'manifest.json'), 'utf8'));
    expect(manifest.hnsw.tuning).toMatchObject({ k: 5, target: 0.9, sample: 3, tuned: true });
    expect(manifest.hnsw.efSearch).toBe(manifest.hnsw.tuning.efSearch);
  });

  it('index tune exits 2 on a bm25 index', async () => {
    const result = await hisragInProcess('index', 'tune', '--index', bm25Dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/needs an hnsw index, this one is bm25/);
  });
});
