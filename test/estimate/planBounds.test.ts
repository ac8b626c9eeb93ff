import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { estimateRun } from '../../src/app/dryRun.js';
import type { PlanCell, RunPlan } from '../../src/runFiles/plan.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { PlanFileSchema } from '../../src/runFiles/plan.js';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { SearchReasonerGenerator, SearchReasonerParamsSchema } from '../../src/generation/searchReasoner.js';
import { methods } from '../../src/methods/registry.js';
import { strategies } from '../../src/prompting/registry.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import { planTable } from '../../src/report/planTable.js';
import { demoConfigIn, multiIndexDemoConfigIn } from '../helpers/demoConfig.js';
import { contentText } from '../../src/generation/langchainMessages.js';
import { startOpenAIServer, type ChatReply, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';
import { freePort } from '../methods/externalFixtures.js';
import { queryMethodsConfigIn } from '../methods/queryMethodsConfig.js';

/**
 * The dry-run plan's `[min, max]` holds for every run: each method of the registry (and each
 * prompting strategy) is planned, then run, and every answer's recorded calls and prompt tokens,
 * summed per condition, must lie inside the plan. A method added to the registry later fails here
 * until a case below runs it.
 */

/** Each registry entry as the cases below run it (refine in both modes). */
const PROHIST_METHODS = [
  'standard',
  { name: 'refine', mode: 'extractive', keep: 8, label: 'refine-extractive' },
  { name: 'refine', mode: 'abstractive', label: 'refine-abstractive' },
  'adaptive',
  { name: 'iter-retgen', rounds: 3 },
  { name: 'ircot', maxSteps: 4 },
  { name: 'self-ask', maxFollowUps: 3 },
  { name: 'sure', candidates: 3 },
];
const PROHIST_STRATEGIES = ['closed-book', 'role', 'prof', 'cot', 'rag'];
const ENDPOINT_ONLY = [{ name: 'agent', maxSearches: 1, maxSteps: 6 }];
const EXTERNAL_AND_PAGES = ['http', 'langchain-runnable', 'outputs', 'page-rag', 'longhisdoc-full'];
/** Reasoning with search and FLARE (issue 34): run by the search-reasoner stand-in, which emits query tags and returns logprobs. */
const REASONING = [
  { name: 'search-o1', maxSearches: 2 },
  { name: 'search-o1', maxSearches: 1, api: 'completions', label: 'search-o1-completions' },
  { name: 'searcher', protocol: 'r1-searcher', maxSearches: 2, label: 'r1-searcher' },
  { name: 'searcher', protocol: 'research', maxSearches: 1, api: 'completions', label: 'research' },
  { name: 'flare', maxSentences: 3 },
  { name: 'flare', query: 'question', maxSentences: 2, label: 'flare-question' },
];
/** The query-side, corrective and compression methods: run from experiments/demo-query-methods.yaml (they need its fallback index and fixture LM). */
const QUERY_METHODS = ['hyde', 'query-rewrite', 'rag-fusion', 'crag', 'compress'];

const nameOf = (spec: string | { name: string }) => (typeof spec === 'string' ? spec : spec.name);
const OUTPUT_DEPENDENT = ['refine-abstractive', 'ircot', 'self-ask', 'sure', 'agent'];

function records(runDir: string): RunItemRecord[] {
  return readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').map((line) => RunItemRecordSchema.parse(JSON.parse(line)));
}

/** Every cell's recorded calls and prompt tokens (and completion tokens) against its plan. */
function expectInside(plan: RunPlan, recorded: RunItemRecord[]): void {
  for (const cell of plan.cells) {
    const mine = recorded.filter((r) => r.model === cell.model && r.condition === cell.condition);
    expect(mine, cell.condition).toHaveLength(cell.answers);
    expect(mine.filter((r) => r.error), `${cell.condition}: failed answers`).toEqual([]);
    const sum = (f: (r: RunItemRecord) => number) => mine.reduce((n, r) => n + f(r), 0);
    const inside = (label: string, actual: number, range: PlanCell['generationCalls']) => {
      expect(actual, `${cell.condition} ${label}: ${actual} below ${range.min}`).toBeGreaterThanOrEqual(range.min);
      if (range.max !== null) expect(actual, `${cell.condition} ${label}: ${actual} above ${range.max}`).toBeLessThanOrEqual(range.max);
    };
    inside('calls', sum((r) => r.cost!.generationCalls), cell.generationCalls);
    inside('prompt tokens', sum((r) => r.cost!.promptTokens), cell.promptTokens);
    inside('completion tokens', sum((r) => r.cost!.completionTokens), cell.completionTokens);
  }
}

/**
 * An endpoint that answers as the offline stand-in would (so that every method's steps get the
 * replies they parse: follow-ups, final answers, candidates) and that keeps each reply within the
 * request's max_tokens as hisrag counts tokens — the one promise the plan takes from a model. A
 * request offering tools (the agent) gets two searches in one turn, then an answer.
 */
const standIn = new ExtractiveGenerator(ExtractiveParamsSchema.parse({}));
function withinMaxTokens(request: ChatRequestBody): ChatReply {
  const limit = request.max_tokens ?? request.max_completion_tokens ?? Infinity;
  const cut = (text: string, budget: number) => {
    let out = text;
    while (out && estimateTokens(out) > budget) out = out.slice(0, -1);
    return out;
  };
  const messages = request.messages.map((m) => ({ role: m.role as 'system' | 'user' | 'assistant', content: contentText(m.content) }));
  if (request.tools?.length) {
    const question = messages.find((m) => m.role === 'user')?.content ?? '';
    if (!request.messages.some((m) => m.role === 'tool')) {
      const calls = [{ name: 'search', args: { query: cut(question, 20) } }, { name: 'search', args: { query: cut(question, 10) } }];
      return { content: null, tool_calls: calls };
    }
    return cut(`根据检索结果：${request.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content)).join('')}`, limit);
  }
  return cut(standIn.answer(messages), limit);
}

describe('the dry-run plan bounds every run', () => {
  const dirs: string[] = [];
  const temp = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await startOpenAIServer({ respond: withinMaxTokens, countTokens: estimateTokens });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('covers every method and strategy of the registries (a new one needs a case here)', () => {
    const covered = new Set([...PROHIST_METHODS, ...PROHIST_STRATEGIES, ...ENDPOINT_ONLY, ...EXTERNAL_AND_PAGES, ...QUERY_METHODS, ...REASONING].map(nameOf));
    expect([...methods.names(), ...strategies.names()].filter((name) => !covered.has(name))).toEqual([]);
  });

  it('offline (the extractive stand-in, no maxTokens): inside the plan, and max null where an earlier output comes back', async () => {
    const dir = temp('hisrag-bounds-offline-');
    const file = demoConfigIn(dir, (config) => {
      config.benchmark.limit = 4;
      config.strategies = [...PROHIST_STRATEGIES, ...PROHIST_METHODS];
    }, 'offline.yaml', 'demo-methods.yaml');
    const plan = await estimateRun(await loadExperimentConfig(file));
    const run = await runCli(['run', file, '--run-id', 'offline', '--no-progress', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    expectInside(plan, records(join(dir, 'runs', 'offline')));
    for (const cell of plan.cells) {
      const dependent = OUTPUT_DEPENDENT.some((name) => cell.condition.startsWith(`${name}@`));
      expect(cell.promptTokens.max === null, cell.condition).toBe(dependent);
      expect(cell.completionTokens.max).toBeNull();
      expect(cell.unbounded).toContain('set models[0].maxTokens to bound it');
    }
    // The passages' share grows with k: a bound at k = 20 is above the one at k = 5.
    for (const name of ['iter-retgen', 'adaptive']) {
      const at = (k: number) => plan.cells.find((c) => c.condition === `${name}@${k}`)!.promptTokens.max!;
      expect(at(20), name).toBeGreaterThan(at(5));
    }
    const dry = await runCli(['run', '--dry-run', file]);
    expect(dry.stdout).toMatch(/^extractive-baseline\s+self-ask@5\s+4\s+8–28\s+[\d,]+–unbounded\s/m);
    expect(dry.stdout).toContain('unbounded (set models[0].maxTokens to bound it): every condition');
  }, 300_000);

  it('against an endpoint with maxTokens: every method bounded, and every run inside', async () => {
    const dir = temp('hisrag-bounds-endpoint-');
    const file = demoConfigIn(dir, (config) => {
      config.benchmark.limit = 3;
      config.strategies = [...PROHIST_METHODS, ...ENDPOINT_ONLY, 'closed-book', 'cot'];
      config.models = [{ name: 'openai', baseURL: server.url, model: 'stand-in', label: 'bounded', maxTokens: 48, retries: 1, retryBaseMs: 1, price: { inputPerMillion: 1, outputPerMillion: 2 } }];
    }, 'endpoint.yaml', 'demo-methods.yaml');
    const plan = await estimateRun(await loadExperimentConfig(file));
    expect(server.chatRequests()).toHaveLength(0);
    for (const cell of plan.cells) {
      expect(cell.promptTokens.max, cell.condition).not.toBeNull();
      expect(cell.completionTokens.max, cell.condition).toBe(cell.generationCalls.max! * 48);
      expect(cell.price!.max, cell.condition).toBeCloseTo((cell.promptTokens.max! * 1 + cell.completionTokens.max! * 2) / 1e6, 12);
    }
    expect(plan.total.price!.max).not.toBeNull();
    const run = await runCli(['run', file, '--run-id', 'endpoint', '--no-progress', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const recorded = records(join(dir, 'runs', 'endpoint'));
    // The endpoint reported usage for every call: the records' tokens are its counts, not hisrag's.
    expect(recorded.every((r) => !r.cost!.estimatedTokens)).toBe(true);
    expectInside(plan, recorded);
    // The agent searched past its limit (two searches asked, one allowed): the refusal is within the bound too.
    expect(recorded.filter((r) => r.condition.startsWith('agent@')).some((r) => (r.methodNotes?.refusedSearches as number) > 0)).toBe(true);
    const report = readFileSync(join(dir, 'runs', 'endpoint', 'report.html'), 'utf8');
    expect(report).toContain('Plan against actual');
    expect(report).not.toContain('outside the plan');
  }, 300_000);

  it('HyDE, query rewriting, RAG-Fusion, CRAG and compression (demo-query-methods) against an endpoint with maxTokens: bounded, and every run inside', async () => {
    const dir = temp('hisrag-bounds-query-');
    const file = queryMethodsConfigIn(dir, (config) => {
      config.benchmark.limit = 3;
      config.strategies = config.strategies.filter((s: string | { name: string }) => QUERY_METHODS.includes(nameOf(s)));
      config.models = [{ name: 'openai', baseURL: server.url, model: 'stand-in', label: 'bounded', maxTokens: 48, retries: 1, retryBaseMs: 1, price: { inputPerMillion: 1, outputPerMillion: 2 } }];
    });
    const plan = await estimateRun(await loadExperimentConfig(file));
    expect(new Set(plan.cells.map((c) => c.condition.split('@')[0]))).toEqual(new Set(['hyde', 'query-rewrite', 'rag-fusion', 'crag', 'crag-ce', 'compress-0.5', 'compress-100to20']));
    for (const cell of plan.cells) {
      expect(cell.promptTokens.max, cell.condition).not.toBeNull();
      expect(cell.completionTokens.max, cell.condition).toBe(cell.generationCalls.max! * 48);
    }
    const run = await runCli(['run', file, '--run-id', 'query', '--no-progress', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const recorded = records(join(dir, 'runs', 'query'));
    expect(recorded.every((r) => !r.cost!.estimatedTokens)).toBe(true);
    expectInside(plan, recorded);
  }, 300_000);

  it('reasoning with search and FLARE, offline and against an endpoint with maxTokens: every run inside its plan', async () => {
    const dir = temp('hisrag-bounds-reasoning-');
    const offline = demoConfigIn(dir, (config) => {
      config.benchmark.limit = 4;
      config.strategies = REASONING;
    }, 'reasoning.yaml', 'demo-reasoning.yaml');
    const offlinePlan = await estimateRun(await loadExperimentConfig(offline));
    const run = await runCli(['run', offline, '--run-id', 'offline', '--no-progress', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    expectInside(offlinePlan, records(join(dir, 'runs', 'offline')));
    // Every later step reads earlier outputs: unbounded without maxTokens.
    for (const cell of offlinePlan.cells) expect(cell.promptTokens.max, cell.condition).toBeNull();

    // The stand-in behind an endpoint, each reply cut to the request's max_tokens as hisrag counts tokens.
    const reasoner = new SearchReasonerGenerator(SearchReasonerParamsSchema.parse({}));
    const cut = (text: string, budget: number) => {
      let out = text;
      while (out && estimateTokens(out) > budget) out = out.slice(0, -1);
      return out;
    };
    const stops = (stop: unknown) => (Array.isArray(stop) ? (stop as string[]) : typeof stop === 'string' ? [stop] : []);
    const bounded = await startOpenAIServer({
      countTokens: estimateTokens,
      respond: async (request) => {
        const limit = request.max_tokens ?? Infinity;
        const messages = request.messages.map((m) => ({ role: m.role as 'user', content: contentText(m.content) }));
        const reply = await reasoner.generate(messages, { call: { stop: stops(request.stop), ...(request.logprobs ? { logprobs: true } : {}), ...(request.max_tokens ? { maxTokens: request.max_tokens } : {}) } });
        return { content: cut(reply.raw, limit), ...(reply.logprobs ? { logprobs: reply.logprobs } : {}) };
      },
      complete: async (request) => {
        const reply = await reasoner.complete(request.prompt, { call: { stop: stops(request.stop) } });
        return cut(reply.raw, request.max_tokens ?? Infinity);
      },
    });
    try {
      const endpoint = demoConfigIn(dir, (config) => {
        config.benchmark.limit = 3;
        config.strategies = REASONING;
        config.models = [{ name: 'openai', baseURL: bounded.url, model: 'stand-in', label: 'bounded', maxTokens: 48, retries: 1, retryBaseMs: 1 }];
      }, 'reasoning-endpoint.yaml', 'demo-reasoning.yaml');
      const plan = await estimateRun(await loadExperimentConfig(endpoint));
      for (const cell of plan.cells) expect(cell.promptTokens.max, cell.condition).not.toBeNull();
      const served = await runCli(['run', endpoint, '--run-id', 'endpoint', '--no-progress', '--quiet']);
      expect(served.code, served.stderr).toBe(0);
      expect(bounded.completionRequests().length).toBeGreaterThan(0);
      const recorded = records(join(dir, 'runs', 'endpoint'));
      expect(recorded.every((r) => !r.cost!.estimatedTokens)).toBe(true);
      expectInside(plan, recorded);
    } finally {
      await bounded.close();
    }
  }, 300_000);

  it('external systems and LongHisDoc page strategies: one request an answer, tokens as the system reports them', async () => {
    const dir = temp('hisrag-bounds-external-');
    const { config, indexes } = multiIndexDemoConfigIn(dir, 'demo-external.yaml');
    const port = await freePort();
    for (const strategy of config.strategies) {
      if (strategy.name === 'http') {
        strategy.url = strategy.url.replace(/:\d+\//, `:${port}/`);
        strategy.serve.options.index = indexes[strategy.serve.options.index];
      }
      if (strategy.name === 'langchain-runnable') strategy.options.index = indexes[strategy.options.index];
    }
    const imageDir = join(REPO_ROOT, 'corpora/sources/demo-longhisdoc/LongHisDoc_IMG');
    config.strategies = [
      ...config.strategies.filter((s: string | { name: string }) => ['http', 'langchain-runnable', 'outputs'].includes(nameOf(s))),
      { name: 'page-rag', label: 'ocr-rag', input: 'text', k: [1, 3] },
      { name: 'page-rag', label: 'image-rag', input: 'image', imageDir, k: [1] },
      { name: 'longhisdoc-full', label: 'ocr-input' },
      { name: 'longhisdoc-full', label: 'image-input', input: 'image', imageDir },
    ];
    config.models = [{ name: 'page-reader', label: 'page-reader', ocrDir: join(REPO_ROOT, 'corpora/sources/demo-longhisdoc/OCR_res') }];
    // Diagnostics are not what this case is about.
    delete config.diagnostics;
    delete config.scoring?.versus;
    const file = join(dir, 'external.yaml');
    writeFileSync(file, stringify(config));
    // The plan the run wrote before its first answer (planned in this process, the service it starts would hold the port).
    const run = await runCli(['run', file, '--run-id', 'external', '--no-progress', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const plan = PlanFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs', 'external', 'plan.json'), 'utf8')));
    expectInside(plan, records(join(dir, 'runs', 'external')));
    for (const label of ['rag-service', 'lcel-chain', 'saved']) {
      const cell = plan.cells.find((c) => c.condition.startsWith(label))!;
      expect(cell.generationCalls, label).toEqual({ min: 0, max: cell.answers });
      expect(cell.promptTokens.max, label).toBeNull();
      expect(cell.unbounded!.some((reason) => reason.includes('an external system reports its own tokens')), label).toBe(true);
    }
    // Page-image prompts are built exactly, their images counted by the generator's formula.
    const images = plan.cells.find((c) => c.condition === 'image-input')!;
    expect(images.basis).toBe('exact');
    expect(images.imageTokens!.min).toBeGreaterThan(0);
    expect(planTable(plan)).toContain('an external system reports its own tokens');
  }, 300_000);
});
