import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema } from '../../src/runFiles/itemRecord.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/runCli.js';

/**
 * An experiment whose retrievers are @langchain/community's HNSWLib and LanceDB stores, offline end to
 * end: fixture model from `hisrag model fixture`, the bundled demo dump, an hnsw and a lancedb index.
 */
describe("an experiment config naming @langchain/community's stores as retrievers", () => {
  let dir: string;
  let result: CliResult;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-lc-run-'));
    const model = await runCli(['model', 'fixture', '--out', join(dir, 'model'), '--dim', '32']);
    expect(model.code).toBe(0);
    const embedder = { name: 'transformers', model: join(dir, 'model') };
    const config = {
      name: 'lc-stores',
      output: join(dir, 'runs'),
      prepare: {
        corpora: [
          {
            name: 'demo',
            builder: { name: 'wikipedia-dump', input: join(REPO_ROOT, 'corpora/sources/demo-zhwiki.xml'), workers: 0 },
            out: join(dir, 'corpus'),
            chunking: { maxSize: 120, unit: 'chars', overlap: 20 },
          },
        ],
        indexes: [
          { out: join(dir, 'hnsw'), corpus: join(dir, 'corpus'), retriever: 'hnsw', embedder },
          { out: join(dir, 'lancedb'), corpus: join(dir, 'corpus'), retriever: 'lancedb', embedder },
        ],
      },
      benchmark: { name: 'prohist', file: join(REPO_ROOT, 'experiments/data/demo-prohist.json'), limit: 3 },
      retrieval: {
        k: [5, 10],
        retrievers: [
          { label: 'lc-hnswlib', name: 'langchain-hnswlib', index: join(dir, 'hnsw'), efSearch: 64 },
          { label: 'lc-lancedb', name: 'langchain-lancedb', index: join(dir, 'lancedb') },
        ],
      },
      strategies: ['rag'],
      models: [{ name: 'extractive', label: 'extractive-baseline' }],
      judge: { name: 'lexical' },
      scoring: { bootstrapResamples: 100 },
    };
    const file = join(dir, 'lc-stores.yaml');
    writeFileSync(file, stringify(config));
    result = await runCli(['run', file, '--run-id', 'lc', '--no-progress']);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 with a row per store and depth', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    for (const row of ['lc-hnswlib/rag@5', 'lc-hnswlib/rag@10', 'lc-lancedb/rag@5', 'lc-lancedb/rag@10']) {
      expect(result.stdout).toMatch(new RegExp(`^${row}\\s`, 'm'));
    }
  });

  it('records the chunks each store retrieved, and the same ones from both stores (same vectors, exact at this size)', () => {
    const runDir = join(dir, 'runs', 'lc');
    const records = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').map((line) => RunItemRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(3 * 4);
    const ids = (label: string, item: string) => records.find((r) => r.retriever === label && r.k === 10 && r.itemId === item)!.retrieved.map((hit) => hit.id);
    for (const item of new Set(records.map((r) => r.itemId))) {
      expect(ids('lc-hnswlib', item)).toHaveLength(10);
      expect(ids('lc-lancedb', item)).toEqual(ids('lc-hnswlib', item));
    }
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest.components.retrievers['lc-hnswlib']).toMatchObject({ name: 'langchain-hnswlib', langchain: 'VectorStore hnswlib' });
    expect(manifest.components.retrievers['lc-lancedb']).toMatchObject({ name: 'langchain-lancedb', langchain: 'VectorStore lancedb' });
  });
});
