import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { endpointExperimentConfig } from '../experiment/endpointFixtures.js';
import { startOpenAIServer, type ChatRequestBody, type CompletionRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { REASONING_METHODS, reasoningCompletion, reasoningResponder } from './reasoningFixtures.js';

const CONDITIONS = ['search-o1@4', 'search-o1-completions@4', 'research@4', 'search-r1@4', 'flare@4', 'flare-question@4'];
const ITEMS = 6;

/** What must not depend on the endpoint's faults or on where reasoning came back: the answer, the steps, their queries. */
const view = (records: RunItemRecord[]) =>
  records
    .map((r) => [r.key, r.response?.text ?? null, r.trace.map((s) => `${s.kind}:${s.label}${s.query ? `(${s.query})` : ''}`).join(' ')] as const)
    .sort((a, b) => a[0].localeCompare(b[0]));

describe('Search-o1, the searcher protocols and FLARE against an OpenAI-compatible endpoint', () => {
  let clean: OpenAIServer;
  let faulty: OpenAIServer;
  let dir: string;
  let cleanRecords: RunItemRecord[];
  let faultyRecords: RunItemRecord[];
  let offlineRecords: RunItemRecord[];
  const extra = () => ({
    strategies: REASONING_METHODS,
    retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [4] },
    benchmark: { name: 'prohist', file: join(process.cwd(), 'experiments/data/demo-prohist.json'), limit: ITEMS },
    judge: { name: 'lexical' },
    execution: { concurrency: 6 },
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-reasoning-endpoint-'));
    clean = await startOpenAIServer({ respond: reasoningResponder, complete: reasoningCompletion });
    faulty = await startOpenAIServer({
      respond: reasoningResponder,
      complete: reasoningCompletion,
      faults: { rate: 0.3, kinds: ['429', '500', 'timeout', 'malformed', 'empty', 'reset'], seed: 11, retryAfterSeconds: 0.02 },
    });
    const generator = { retries: 10, retryBaseMs: 2, retryMaxMs: 10, timeoutMs: 1500, concurrency: 6 };
    const run = async (url: string, runId: string) => {
      const result = await runExperiment({ config: await loadExperimentConfig(endpointExperimentConfig(dir, url, generator, extra())), runId });
      return readRunRecords(result.runDir);
    };
    cleanRecords = await run(clean.url, 'clean');
    faultyRecords = await run(faulty.url, 'faulty');
    // The same stand-in offline (reasoning inline, no HTTP): the endpoint path must change nothing the methods decide.
    const offline = endpointExperimentConfig(dir, clean.url, {}, { ...extra(), models: [{ name: 'search-reasoner', label: 'stand-in' }] });
    offlineRecords = await readRunRecords((await runExperiment({ config: await loadExperimentConfig(offline), runId: 'offline' })).runDir);
  }, 300_000);

  afterAll(async () => {
    await clean?.close();
    await faulty?.close();
  });

  it('answers every question under every method, and speaks the protocol: stop sequences, reasoning_content, logprobs, /v1/completions', () => {
    expect(cleanRecords).toHaveLength(ITEMS * CONDITIONS.length);
    expect(new Set(cleanRecords.map((r) => r.condition))).toEqual(new Set(CONDITIONS));
    expect(cleanRecords.filter((r) => r.score.status !== 'scored')).toEqual([]);
    const chat = clean.chatRequests().map((r) => r.body as ChatRequestBody);
    expect(chat.some((b) => JSON.stringify(b.stop) === JSON.stringify(['<|end_search_query|>']))).toBe(true);
    expect(chat.some((b) => JSON.stringify(b.stop) === JSON.stringify(['</search>']))).toBe(true);
    expect(chat.some((b) => b.logprobs === true && b.max_tokens === 64)).toBe(true);
    const completions = clean.completionRequests().map((r) => r.body as CompletionRequestBody);
    expect(completions.length).toBeGreaterThan(ITEMS);
    // A continuation carries the transcript: the query the endpoint stopped at, closed by hisrag, and the result after it.
    expect(completions.some((b) => /<\|begin_search_query\|>[^<]+<\|end_search_query\|>\n<\|begin_search_result\|>/.test(b.prompt))).toBe(true);
    expect(completions.some((b) => /<search>[^<]+<\/search>\n<result>\n【资料1】/.test(b.prompt))).toBe(true);
    // Nothing the model wrote past a stop sequence reaches a prompt.
    for (const b of [...chat.map((c) => c.messages.map((m) => m.content).join('\n')), ...completions.map((c) => c.prompt)]) expect(b).not.toContain('编造的结果');
    // Reasoning returned apart (reasoning_content) is kept in the trace and carried into the next prompt.
    const o1 = cleanRecords.filter((r) => r.condition === 'search-o1@4');
    expect(o1.every((r) => r.trace[0]!.response!.startsWith('<think>需要查证：'))).toBe(true);
    expect(chat.some((b) => b.messages.some((m) => (m.content ?? '').includes('【已有推理】\n需要查证：')))).toBe(true);
  });

  it('traces Search-o1 in the paper\'s order: query, documents, condensed result, reasoning resumed; the budget\'s limit when spent', () => {
    for (const r of cleanRecords.filter((x) => x.condition.startsWith('search-o1'))) {
      const kinds = r.trace.map((s) => (s.kind === 'retrieve' ? 'R' : s.kind === 'search-limit' ? 'L' : s.label.startsWith('reason-in-documents') ? 'D' : 'G')).join('');
      expect(kinds, r.key).toMatch(/^G(RDG)*(LG)?$/);
      expect(r.cost!.generationCalls).toBe(r.trace.filter((s) => s.kind === 'generate').length);
      expect(r.cost!.estimatedTokens).toBeFalsy();
      // Each condensed result is inside the reasoning the next step continues.
      for (const [i, step] of r.trace.entries()) {
        if (!step.label.startsWith('reason-in-documents')) continue;
        const next = r.trace[i + 1]!;
        expect(next.messages!.map((m) => m.content).join('\n')).toContain(`<|begin_search_result|>\n${step.response!.trim()}\n<|end_search_result|>`);
      }
    }
    const limited = cleanRecords.filter((r) => r.condition === 'search-o1-completions@4' && r.methodNotes!.reachedMaxSearches);
    expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) expect(r.trace.at(-1)!.label).toBe('answer');
  });

  it('traces FLARE: low-confidence sentences, their retrievals and regenerations; confident sentences kept without retrieval', () => {
    const flare = cleanRecords.filter((r) => r.condition.startsWith('flare'));
    const low = flare.flatMap((r) => r.trace.filter((s) => s.kind === 'low-confidence'));
    expect(low.length).toBeGreaterThan(0);
    expect(low.every((s) => (s.detail!.minProbability as number) < 0.4)).toBe(true);
    for (const r of flare) {
      const labels = r.trace.map((s) => s.label);
      for (const [i, label] of labels.entries()) {
        if (!label.startsWith('low-confidence')) continue;
        const n = /\[(\d+)\]/.exec(label)![1];
        const rest = labels.slice(i + 1, i + 4).filter((l) => !l.startsWith('question'));
        expect(rest.slice(0, 2)).toEqual([`retrieve[${n}]`, `regenerate[${n}]`]);
      }
    }
    expect(flare.some((r) => !r.trace.some((s) => s.kind === 'low-confidence'))).toBe(true);
    expect(cleanRecords.filter((r) => r.condition === 'flare-question@4').some((r) => r.trace.some((s) => s.label.startsWith('question[')))).toBe(true);
  });

  it('gives the offline stand-in\'s answers and steps (reasoning apart or inline, chat or completions)', () => {
    expect(view(cleanRecords)).toEqual(view(offlineRecords));
  });

  it('gives exactly the fault-free answers, steps and tokens with 30% of requests failing', () => {
    const injected = [...faulty.chatRequests(), ...faulty.completionRequests()].filter((r) => r.fault);
    expect(injected.length).toBeGreaterThan(20);
    expect(faulty.completionRequests().some((r) => r.fault)).toBe(true);
    expect(faultyRecords.filter((r) => r.score.status !== 'scored')).toEqual([]);
    expect(view(faultyRecords)).toEqual(view(cleanRecords));
    const tokens = (records: RunItemRecord[]) => records.map((r) => [r.key, r.cost!.promptTokens, r.cost!.completionTokens]).sort();
    expect(tokens(faultyRecords)).toEqual(tokens(cleanRecords));
  });

  it('refuses FLARE on an endpoint that returns no logprobs (exit 2, naming the model and the setting), and completions on a generator without them', async () => {
    const noLogprobs = await startOpenAIServer({ respond: reasoningResponder, noLogprobs: true });
    try {
      const file = endpointExperimentConfig(mkdtempSync(join(tmpdir(), 'hisrag-flare-refused-')), noLogprobs.url, { retries: 0 }, { ...extra(), strategies: [{ name: 'flare' }] });
      const result = await runCli(['run', file, '--run-id', 'refused', '--no-progress']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/method "flare": model "stand-in-llm" \(generator openai\) returned no token logprobs/);
      expect(result.stderr).toContain('threshold');
      // One look-ahead was enough to know.
      expect(noLogprobs.chatRequests().length).toBeLessThanOrEqual(6);
    } finally {
      await noLogprobs.close();
    }
    const offline = endpointExperimentConfig(mkdtempSync(join(tmpdir(), 'hisrag-completions-refused-')), clean.url, {}, { ...extra(), strategies: [{ name: 'search-o1', api: 'completions' }], models: [{ name: 'extractive', label: 'extractive' }] });
    const result = await runCli(['run', offline, '--run-id', 'refused', '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('generator extractive (extractive) has no completions API (api: completions needs one)');
  }, 120_000);
});
