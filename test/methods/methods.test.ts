import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentAsText } from '../../src/prompting/messageContent.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { MethodStepError } from '../../src/methods/stepError.js';
import { methods, parseMethodSpec } from '../../src/methods/registry.js';
import { FINAL_ANSWER_PREFIX, outputKindOf, sectionText, SECTIONS } from '../../src/prompting/taskFormat.js';
import { startOpenAIServer, type ChatRequestBody, type FaultOptions, type OpenAIServer, type Responder } from '../helpers/openaiServer.js';
import { runMethod, runMethodFailing } from './methodHarness.js';

const lastUser = (request: ChatRequestBody) => [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  closeResponseCaches();
});

/** A server whose model replies by the kind of step a prompt asks for (`【输出】…`), as scripted by the test. */
async function scripted(replies: Partial<Record<string, (prompt: string, request: ChatRequestBody) => string>>, faults?: FaultOptions) {
  const respond: Responder = (request) => {
    const prompt = lastUser(request);
    const kind = outputKindOf(prompt) ?? 'answer';
    const reply = replies[kind];
    if (!reply) throw new Error(`no scripted reply for a ${kind} step`);
    return reply(prompt, request);
  };
  server = await startOpenAIServer({ respond, ...(faults ? { faults } : {}) });
  return server;
}

const kinds = (trace: { kind: string }[]) => trace.map((s) => s.kind);
const labels = (trace: { label: string }[]) => trace.map((s) => s.label);

describe('standard', () => {
  it('retrieves once and answers once, recording both steps with usage', async () => {
    const { url } = await scripted({ answer: () => '科举始于隋朝。' });
    const { run, outcome } = await runMethod({ name: 'standard' }, url);
    expect(kinds(run.trace)).toEqual(['retrieve', 'generate']);
    expect(outcome.answer).toBe('科举始于隋朝。');
    expect(run.trace[0]!.passages!.map((p) => p.id)).toEqual(['c1', 'c2', 'c4']);
    expect(run.trace[1]!.usage!.promptTokens).toBeGreaterThan(0);
    expect(run.trace[1]!.usageEstimated).toBeUndefined();
    expect(run.cost()).toMatchObject({ retrievalCalls: 1, generationCalls: 1 });
    expect(outcome.contextIds).toEqual(['c1', 'c2', 'c4']);
  });
});

describe('refine', () => {
  it('extractive: keeps the best sentences by relevance, in their original order, and records before/after', async () => {
    const { url } = await scripted({ answer: () => '隋朝。' });
    const { run, outcome } = await runMethod({ name: 'refine', mode: 'extractive', keep: 2 }, url);
    expect(kinds(run.trace)).toEqual(['retrieve', 'score', 'refine', 'generate']);
    const refine = run.trace[2]!.detail!;
    expect(refine.sentencesKept).toBe(2);
    expect(refine.charsAfter as number).toBeLessThan(refine.charsBefore as number);
    const prompt = contentAsText(outcome.prompt.at(-1)!.content);
    expect(prompt).toContain('科举始于隋朝，隋炀帝设进士科。');
    expect(prompt).not.toContain('明清进士分三甲');
    // Original order: the passage c1's sentences come before c2's.
    expect(prompt.indexOf('科举')).toBeLessThan(prompt.indexOf('殿试') === -1 ? Infinity : prompt.indexOf('殿试'));
  });

  it('abstractive: the model condenses the passages, then answers from the condensed text', async () => {
    const { url } = await scripted({ condense: () => '隋炀帝设进士科，科举由此开始。', answer: (p) => (p.includes('隋炀帝设进士科，科举由此开始') ? '隋朝' : '不知道') });
    const { run, outcome } = await runMethod({ name: 'refine', mode: 'abstractive' }, url);
    expect(labels(run.trace)).toEqual(['retrieve', 'condense', 'abstractive', 'answer']);
    expect(outcome.answer).toBe('隋朝');
    expect(outcome.prompt.at(-1)!.content).not.toContain('秦始皇');
  });

  it('extractive needs a retriever that scores sentences', async () => {
    const { url } = await scripted({ answer: () => 'x' });
    await expect(runMethod({ name: 'refine', mode: 'extractive' }, url, { relevance: false })).rejects.toThrow(/cannot/);
  });
});

describe('adaptive', () => {
  it('answers closed-book when the model says it can, without retrieving', async () => {
    const { url } = await scripted({ decide: () => '是', answer: (p) => (p.includes('【资料1】') ? 'RAG' : '凭记忆：隋朝') });
    const { run, outcome } = await runMethod({ name: 'adaptive' }, url);
    expect(kinds(run.trace)).toEqual(['generate', 'judge-retrieval', 'generate']);
    expect(outcome.answer).toBe('凭记忆：隋朝');
    expect(outcome.notes).toEqual({ retrieved: false, decisionUnparsed: false });
  });

  it('retrieves when the model says it needs material', async () => {
    const { url } = await scripted({ decide: () => '否', answer: (p) => (p.includes('【资料1】') ? 'RAG' : 'closed') });
    const { run, outcome } = await runMethod({ name: 'adaptive' }, url);
    expect(kinds(run.trace)).toEqual(['generate', 'judge-retrieval', 'retrieve', 'generate']);
    expect(outcome.answer).toBe('RAG');
    expect(outcome.notes).toEqual({ retrieved: true, decisionUnparsed: false });
  });

  it('falls back to retrieval on an unparseable decision, and counts it', async () => {
    const { url } = await scripted({ decide: () => '这个问题很有意思。', answer: (p) => (p.includes('【资料1】') ? 'RAG' : 'closed') });
    const { outcome } = await runMethod({ name: 'adaptive' }, url);
    expect(outcome.notes).toEqual({ retrieved: true, decisionUnparsed: true });
  });
});

describe('iter-retgen', () => {
  it('runs `rounds` rounds, each query = question + the previous answer; the last answer counts', async () => {
    let n = 0;
    const { url } = await scripted({ answer: () => `第${++n}轮：殿试由皇帝主持。` });
    const queries: string[] = [];
    const { run, outcome } = await runMethod({ name: 'iter-retgen', rounds: 3 }, url, { retrieveLog: queries });
    expect(kinds(run.trace)).toEqual(['retrieve', 'generate', 'retrieve', 'generate', 'retrieve', 'generate']);
    expect(queries).toEqual(['科举制度始于哪个朝代？', '科举制度始于哪个朝代？\n第1轮：殿试由皇帝主持。', '科举制度始于哪个朝代？\n第2轮：殿试由皇帝主持。']);
    expect(outcome.answer).toBe('第3轮：殿试由皇帝主持。');
    expect(run.cost()).toMatchObject({ retrievalCalls: 3, generationCalls: 3 });
  });
});

describe('ircot', () => {
  it('retrieves with each reasoning sentence and stops at the final answer', async () => {
    const { url } = await scripted({
      'next-step': (p) => (sectionText(p, SECTIONS.reasoning).includes('进士') ? `${FINAL_ANSWER_PREFIX}隋朝` : '隋炀帝设进士科。此后历代沿用。'),
    });
    const queries: string[] = [];
    const { run, outcome } = await runMethod({ name: 'ircot', maxSteps: 5 }, url, { retrieveLog: queries });
    expect(labels(run.trace)).toEqual(['retrieve[0]', 'reason[1]', 'retrieve[1]', 'reason[2]']);
    // Only the first sentence of a reasoning reply is kept as the step and the next query.
    expect(queries[1]).toBe('隋炀帝设进士科。');
    expect(outcome.answer).toBe('隋朝');
    expect(outcome.notes).toEqual({ steps: 2, reachedMaxSteps: false });
  });

  it('asks for the answer once maxSteps pass without one, keeping the passages deduplicated and capped', async () => {
    let step = 0;
    const { url } = await scripted({ 'next-step': () => `第${++step}步：乡试在省城贡院举行。`, answer: () => '最终：隋朝' });
    const { run, outcome } = await runMethod({ name: 'ircot', maxSteps: 3, maxPassages: 4 }, url);
    expect(run.trace.filter((s) => s.label.startsWith('reason'))).toHaveLength(3);
    expect(run.trace.filter((s) => s.kind === 'retrieve')).toHaveLength(4);
    expect(run.trace.at(-1)!.label).toBe('conclude');
    expect(outcome.answer).toBe('最终：隋朝');
    expect(outcome.notes).toEqual({ steps: 3, reachedMaxSteps: true });
    expect(outcome.contextIds.length).toBeLessThanOrEqual(4);
    expect(new Set(outcome.contextIds).size).toBe(outcome.contextIds.length);
  });
});

describe('self-ask', () => {
  it('answers each follow-up from its own retrieval, then gives the final answer', async () => {
    const { url } = await scripted({
      'follow-up': (p) => (sectionText(p, SECTIONS.known).includes('进士科') ? '无需追问' : '追问：进士科是谁设立的？'),
      answer: (p) => (p.includes('【已知】') ? '隋朝' : '隋炀帝设进士科'),
    });
    const queries: string[] = [];
    const { run, outcome } = await runMethod({ name: 'self-ask' }, url, { retrieveLog: queries });
    expect(labels(run.trace)).toEqual(['follow-up[1]', 'retrieve[1]', 'intermediate[1]', 'follow-up[2]', 'answer']);
    expect(queries).toEqual(['进士科是谁设立的？']);
    expect(outcome.answer).toBe('隋朝');
    expect(outcome.prompt.at(-1)!.content).toContain('中间答案：隋炀帝设进士科');
  });

  it('stops at maxFollowUps', async () => {
    let n = 0;
    const { url } = await scripted({ 'follow-up': () => `追问：第${++n}个子问题？`, answer: () => '答' });
    const { run } = await runMethod({ name: 'self-ask', maxFollowUps: 2 }, url);
    expect(run.trace.filter((s) => s.label.startsWith('follow-up'))).toHaveLength(2);
    expect(run.cost().retrievalCalls).toBe(2);
  });
});

describe('sure', () => {
  it('lists candidates, summarises and checks each, ranks them pairwise, and answers with the best', async () => {
    const { url } = await scripted({
      candidates: () => '（1）唐朝\n（2）隋朝\n（3）宋朝',
      condense: (p) => `支持${sectionText(p, SECTIONS.candidate)}的摘要`,
      decide: (p) => (sectionText(p, SECTIONS.candidate) === '唐朝' ? '否' : '是'),
      choose: (p) => (p.includes('支持隋朝') ? (sectionText(p, '【摘要1】').includes('隋朝') ? '1' : '2') : '1'),
    });
    const { run, outcome } = await runMethod({ name: 'sure', candidates: 3 }, url);
    // 1 candidates call, 3 summaries, 3 validity checks, 3 pairwise comparisons.
    expect(run.cost().generationCalls).toBe(1 + 3 + 3 + 3);
    expect(outcome.answer).toBe('隋朝');
    expect(run.trace.at(-1)).toMatchObject({ kind: 'select', detail: { chosen: 2 } });
  });
});

describe('a step that fails', () => {
  it('fails the item naming the step, with the failed step last in the trace (middle step of a multi-step method)', async () => {
    // Request 1 (follow-up) and 2 (intermediate) succeed, request 3 (the second follow-up) gets a 500.
    const { url } = await scripted(
      { 'follow-up': () => '追问：进士科是谁设立的？', answer: () => '隋炀帝' },
      { rate: 0, kinds: [], seed: 1, script: [null, null, '500'] },
    );
    const { run, error } = await runMethodFailing({ name: 'self-ask' }, url);
    expect(error).toBeInstanceOf(MethodStepError);
    expect(error.message).toMatch(/step 4 \(generate "follow-up\[2\]"\) failed/);
    expect(run.trace.at(-1)).toMatchObject({ label: 'follow-up[2]', error: expect.stringMatching(/500|server/i) });
    expect(run.trace).toHaveLength(4);
  });

  it('fails the item when an intermediate step stays empty after the retries', async () => {
    const { url } = await scripted({ condense: () => '', answer: () => '隋朝' });
    const { error } = await runMethodFailing({ name: 'refine', mode: 'abstractive' }, url);
    expect(error.message).toMatch(/"condense".*empty completion/);
  });
});

describe('method params', () => {
  it('are config errors naming the path', () => {
    expect(() => parseMethodSpec({ name: 'iter-retgen', rounds: 0 }, 'strategies[2]')).toThrow(ConfigError);
    expect(() => parseMethodSpec({ name: 'iter-retgen', rounds: 0 }, 'strategies[2]')).toThrow(/strategies\[2\]\.rounds/);
    expect(() => parseMethodSpec({ name: 'ircot', maxStep: 5 }, 'strategies[1]')).toThrow(/strategies\[1\].*maxStep/);
    expect(() => parseMethodSpec({ name: 'nope' }, 'strategies[0]')).toThrow(/strategies\[0\]\.name: unknown strategy or method "nope".*methods: .*ircot/);
  });

  it('check overridden prompts keep their placeholders', async () => {
    await expect(methods.create({ name: 'ircot', prompts: { reason: { template: '{question}' } } }, undefined, 'strategies[0]')).rejects.toThrow(/prompts\.reason\.template lacks \{context\}/);
  });

  it('accept an overridden prompt, which the model then receives', async () => {
    const { url } = await scripted({ answer: (p) => (p.startsWith('自定义') ? '收到自定义' : '默认') });
    const { outcome } = await runMethod({ name: 'iter-retgen', rounds: 1, prompts: { answer: { template: '自定义：{context}\n【问题】{question}\n{instructions}' } } }, url);
    expect(outcome.answer).toBe('收到自定义');
  });

  it('take a step\'s prompt from a file, in the shape strategies take it (templateFile: text, or YAML with system and template)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-prompts-'));
    const text = join(dir, 'answer.txt');
    writeFileSync(text, '文件模板：{context}\n【问题】{question}\n{instructions}');
    const { url } = await scripted({ answer: (p) => (p.startsWith('文件模板') ? '收到文件模板' : '默认') });
    expect((await runMethod({ name: 'iter-retgen', rounds: 1, prompts: { answer: { templateFile: text } } }, url)).outcome.answer).toBe('收到文件模板');
    const yaml = join(dir, 'reason.yaml');
    writeFileSync(yaml, 'system: 系统\ntemplate: "{question}"\n');
    await expect(methods.create({ name: 'ircot', prompts: { reason: { templateFile: yaml } } }, undefined, 'strategies[0]')).rejects.toThrow(/prompts\.reason\.template lacks \{context\}/);
    await expect(methods.create({ name: 'ircot', prompts: { reason: { templateFile: join(dir, 'missing.txt') } } }, undefined, 'strategies[0]')).rejects.toThrow(/templateFile: cannot read .*missing\.txt/);
  });
});
