import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { retrievers } from '../../src/retrieval/registry.js';
import type { RetrievalQuery, RetrievedChunk } from '../../src/retrieval/types.js';
import { REPO_ROOT } from '../helpers/runCli.js';

/** A deterministic ranking of 30 made-up passages for a query. */
function ranking(query: RetrievalQuery, k: number): RetrievedChunk[] {
  const seed = [...query.text].reduce((h, ch) => (h * 31 + ch.codePointAt(0)!) >>> 0, 7);
  return Array.from({ length: Math.min(k, 30) }, (_, i) => {
    const n = (seed + i * 7) % 30;
    return { id: `p${n}`, docId: `d${n}`, title: `第${n}篇`, text: `${query.text.slice(0, 4)}：资料${n}。`, score: 1 - i / 30, rank: i + 1, meta: {} };
  });
}

const calls = { single: 0, batches: [] as number[] };
// The retriever leaves with this file (a fork that runs several files shares the registries).
afterAll(() => void retrievers.unregister('test-batching'));
retrievers.register({
  name: 'test-batching',
  description: 'test retriever with retrieveBatch',
  params: z.strictObject({}),
  create: () => ({
    name: 'test-batching',
    retrieve: async (query: RetrievalQuery, k: number) => {
      calls.single++;
      return ranking(query, k);
    },
    retrieveBatch: async (queries: RetrievalQuery[], k: number) => {
      calls.batches.push(queries.length);
      return queries.map((q) => ranking(q, k));
    },
    describe: () => ({ name: 'test-batching' }),
    close: async () => {},
  }),
});

describe('the runner and retrievers that answer many queries at once', () => {
  it('asks retrieveBatch once per group of questions, at the deepest k, and records the same lists as one query at a time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-batch-'));
    const config = validateExperimentConfig(
      {
      name: 'batched',
      output: join(dir, 'runs'),
      benchmark: { name: 'prohist', file: join(REPO_ROOT, 'experiments/data/demo-prohist.json') },
      retrieval: { retriever: { name: 'test-batching' }, k: [2, 5] },
      strategies: ['rag'],
      models: [{ name: 'extractive' }],
      scoring: { bootstrapResamples: 50 },
      },
      'batched.yaml',
    );
    const result = await runExperiment({ config, runId: 'b' });
    const records = await readRunRecords(result.runDir);
    const questions = new Set(records.map((r) => r.itemId)).size;
    expect(calls.single).toBe(0);
    expect(calls.batches).toEqual([questions]);
    for (const r of records) {
      const expected = ranking({ text: r.question }, r.k!).map((c) => c.id);
      expect(r.retrieved.map((c) => c.id)).toEqual(expected);
    }
  });
});
