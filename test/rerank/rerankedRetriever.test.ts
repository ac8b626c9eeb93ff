import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateExperimentConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { createRetrieverContext } from '../../src/retrieval/registry.js';
import type { Retriever } from '../../src/retrieval/types.js';
import { createRetrieverWithRerank, rerankedRetriever } from '../../src/rerank/rerankedRetriever.js';
import { CrossEncoderReranker } from '../../src/rerank/crossEncoderReranker.js';
import { createLlmReranker } from '../../src/rerank/llmListwiseReranker.js';
import type { Reranker } from '../../src/rerank/types.js';
import { buildTestIndexes, type BuiltIndexes } from '../retrieval/builtIndexes.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { temporaryRerankerFixture } from './rerankerFixtureDir.js';

const QUERY = { text: '科举考试', itemId: 'q1' };

describe('a retriever with a rerank section', () => {
  let root: string;
  let built: BuiltIndexes;
  let fixture: Awaited<ReturnType<typeof temporaryRerankerFixture>>;
  let dense: Retriever;
  const open: Retriever[] = [];
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-reranked-'));
    built = await buildTestIndexes(root);
    fixture = await temporaryRerankerFixture();
    dense = await createRetrieverWithRerank({ name: 'hnsw', index: built.hnsw }, createRetrieverContext({ embedder: built.embedder }), 'retriever');
    open.push(dense);
  });
  afterAll(async () => {
    for (const r of open) await r.close();
    await built.embedder.dispose();
    await fixture.remove();
    rmSync(root, { recursive: true, force: true });
  });

  /** The fixture cross-encoder, counting the lists it is asked to rerank. */
  function countingCrossEncoder(): Reranker & { calls: number } {
    const inner = new CrossEncoderReranker({ model: fixture.dir });
    const counted = {
      name: inner.name,
      calls: 0,
      rerank: (query: string, passages: string[]) => (counted.calls++, inner.rerank(query, passages)),
      describe: () => inner.describe(),
      close: () => inner.close(),
    };
    return counted;
  }

  it('reranks once per question and serves every depth from that one list', async () => {
    const reranker = countingCrossEncoder();
    const base = await createRetrieverWithRerank({ name: 'hnsw', index: built.hnsw }, createRetrieverContext({ embedder: built.embedder }), 'retriever');
    const reranked = rerankedRetriever(base, reranker, { candidates: 8, passage: 'text' });
    open.push(reranked);
    const top5 = await reranked.retrieve(QUERY, 5);
    const top2 = await reranked.retrieve(QUERY, 2);
    const top8 = await reranked.retrieve(QUERY, 8);
    expect(reranker.calls).toBe(1);
    expect(top2).toEqual(top5.slice(0, 2));
    expect(top5).toEqual(top8.slice(0, 5));
    await reranked.retrieve({ text: '匈奴', itemId: 'q2' }, 3);
    expect(reranker.calls).toBe(2);
  });

  it('gives every chunk its reranked rank and score and its first-stage ones', async () => {
    const reranker = countingCrossEncoder();
    const base = await createRetrieverWithRerank({ name: 'hnsw', index: built.hnsw }, createRetrieverContext({ embedder: built.embedder }), 'retriever');
    const reranked = rerankedRetriever(base, reranker, { candidates: 8, passage: 'text' });
    open.push(reranked);
    const list = await reranked.retrieve(QUERY, 8);
    const firstStage = await dense.retrieve(QUERY, 8);
    expect(list.map((c) => c.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (let i = 1; i < list.length; i++) expect(list[i - 1]!.score).toBeGreaterThanOrEqual(list[i]!.score);
    for (const chunk of list) {
      const before = firstStage.find((c) => c.id === chunk.id)!;
      expect(chunk.firstStage).toEqual({ rank: before.rank, score: before.score });
    }
    expect(list.map((c) => c.firstStage!.rank)).not.toEqual([1, 2, 3, 4, 5, 6, 7, 8]); // the order changed
    expect((await reranked.firstStage!(QUERY)).map((c) => c.id)).toEqual(firstStage.map((c) => c.id));
    expect(reranker.calls).toBe(1);
  });

  it('keeps the first-stage order among equal reranker scores', async () => {
    const flat: Reranker = { name: 'flat', rerank: async (_q, passages) => ({ scores: passages.map((_, i) => (i === 2 ? 1 : 0)) }), describe: () => ({ name: 'flat' }), close: async () => {} };
    const base = await createRetrieverWithRerank({ name: 'hnsw', index: built.hnsw }, createRetrieverContext({ embedder: built.embedder }), 'retriever');
    const reranked = rerankedRetriever(base, flat, { candidates: 5, passage: 'text' });
    open.push(reranked);
    expect((await reranked.retrieve(QUERY, 5)).map((c) => c.firstStage!.rank)).toEqual([3, 1, 2, 4, 5]);
  });

  it('is built from a config spec and checked against the reranker registry with its path', async () => {
    const spec = { name: 'hnsw', index: built.hnsw, rerank: { name: 'cross-encoder', model: fixture.dir, candidates: 5 } };
    const retriever = await createRetrieverWithRerank(spec, createRetrieverContext({ embedder: built.embedder }), 'retrieval.retriever');
    open.push(retriever);
    expect(retriever.describe()).toMatchObject({ name: 'hnsw', rerank: { name: 'cross-encoder', candidates: 5 } });
    expect(await retriever.retrieve(QUERY, 3)).toHaveLength(3);
    // The experiment schema checks the rerank section in the same pass as the rest of the config.
    const withRetriever = (retriever: unknown) => () =>
      validateExperimentConfig({ name: 'x', benchmark: { name: 'prohist', file: 'q.json' }, retrieval: { k: 3, retriever }, strategies: ['rag'], models: [{ name: 'extractive' }] }, 'exp.yaml');
    expect(withRetriever({ ...spec, rerank: { name: 'cross-encoder', dtype: 'fp16' } })).toThrow(/retrieval\.retriever\.rerank/);
    expect(withRetriever({ ...spec, rerank: { name: 'colbert' } })).toThrow(ConfigError);
    expect(withRetriever({ ...spec, rerank: { name: 'cross-encoder', candidates: 0 } })).toThrow(/rerank\.candidates/);
    const llm = { name: 'llm', generator: { name: 'openai', baseURL: 'http://127.0.0.1:1/v1', model: 'm', temperature: 9 } };
    expect(withRetriever({ ...spec, rerank: llm })).toThrow(/retrieval\.retriever\.rerank\.generator\.temperature/);
  });

  describe('with the llm listwise reranker', () => {
    let server: OpenAIServer;
    let answer = '';
    beforeAll(async () => {
      server = await startOpenAIServer({ respond: () => answer });
    });
    afterAll(() => server.close());

    const llmReranked = async (warnings: string[]) => {
      const reranker = await createLlmReranker({ generator: { name: 'openai', baseURL: server.url, model: 'ranker', retries: 0 }, maxPassageChars: 50 });
      const base = await createRetrieverWithRerank({ name: 'hnsw', index: built.hnsw }, createRetrieverContext({ embedder: built.embedder }), 'retriever');
      const reranked = rerankedRetriever(base, reranker, { candidates: 4, passage: 'text' }, (line) => warnings.push(line));
      open.push(reranked);
      return reranked;
    };

    it('orders the candidates as the model says, the ones it leaves out after them', async () => {
      answer = '<think>嗯</think>[3] > [1]';
      const reranked = await llmReranked([]);
      const list = await reranked.retrieve(QUERY, 4);
      expect(list.map((c) => c.firstStage!.rank)).toEqual([3, 1, 2, 4]);
      expect(list.every((c) => c.rerankFallback === undefined)).toBe(true);
      expect(reranked.counts()).toEqual({ lists: 1, fallbacks: 0 });
    });

    it('keeps the first-stage order on an unusable answer, counts it, warns and marks the chunks', async () => {
      answer = '抱歉，我无法判断。';
      const warnings: string[] = [];
      const reranked = await llmReranked(warnings);
      const list = await reranked.retrieve(QUERY, 4);
      expect(list.map((c) => c.firstStage!.rank)).toEqual([1, 2, 3, 4]);
      expect(list.every((c) => c.rerankFallback?.includes('names no candidate id'))).toBe(true);
      expect(reranked.counts()).toEqual({ lists: 1, fallbacks: 1 });
      expect(warnings.join('\n')).toMatch(/q1: unusable reranking answer.*kept the first-stage order \(1 of 1 lists so far\)/);
    });
  });
});
