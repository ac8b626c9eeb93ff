import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../src/errors.js';
import { OpenAIGenerator, OpenAIParamsSchema, type OpenAIParams } from '../../src/generation/openai.js';
import type { Generator } from '../../src/generation/types.js';
import {
  createLlmClaimChecker,
  createLlmClaimExtractor,
  llmClaimChecker,
  llmClaimExtractor,
  openaiClaimChecker,
  openaiClaimExtractor,
} from '../../src/diagnostics/claims/llm.js';
import { parseClaimList, parseLabels } from '../../src/diagnostics/claims/parseClaims.js';
import { checkingMessages, extractionMessages, PROMPT_VERSION } from '../../src/diagnostics/claims/prompts.js';
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer, type Responder } from '../helpers/openaiServer.js';

const CLAIMS = ['李靖于贞观四年击败颉利可汗。', '李靖进封代国公。', '颉利可汗被俘后押送长安。'];
const PASSAGE = '贞观四年，李靖率军夜袭定襄，大破突厥，颉利可汗被俘，李靖以功进封代国公。';

describe('parseClaimList', () => {
  it('reads numbered claims in every common numbering style', () => {
    const text = ['1. 李靖是唐朝将领。', '2、李靖进封代国公。', '(3) 颉利可汗被俘。', '[4] 定襄在今内蒙古。', '**5.** 贞观是唐太宗的年号。', '6） 突厥败亡。'].join('\n');
    expect(parseClaimList(text)).toEqual({
      ok: true,
      claims: ['李靖是唐朝将领。', '李靖进封代国公。', '颉利可汗被俘。', '定襄在今内蒙古。', '贞观是唐太宗的年号。', '突厥败亡。'],
    });
  });

  it('takes 无 (alone, with a full stop, or as the only numbered item) as no claims', () => {
    for (const text of ['无', '无。', ' “无” ', '1. 无']) expect(parseClaimList(text)).toEqual({ ok: true, claims: [] });
  });

  it('ignores stray lines when there are numbered claims, and fails when there are none', () => {
    expect(parseClaimList('以下是陈述：\n1. 李靖进封代国公。\n以上。')).toEqual({ ok: true, claims: ['李靖进封代国公。'] });
    const none = parseClaimList('李靖进封代国公。\n颉利可汗被俘。');
    expect(none.ok).toBe(false);
    expect(!none.ok && none.error).toMatch(/no numbered claims/);
  });

  it('does not read a line that starts with a year as a numbered claim', () => {
    expect(parseClaimList('1644年明朝灭亡。').ok).toBe(false);
    expect(parseClaimList('1. 1644年，明朝灭亡。')).toEqual({ ok: true, claims: ['1644年，明朝灭亡。'] });
  });

  it('strips reasoning first, and fails on an unclosed reasoning block or an empty output', () => {
    expect(parseClaimList('<think>1. 错误的陈述</think>\n1. 李靖进封代国公。')).toEqual({ ok: true, claims: ['李靖进封代国公。'] });
    expect(parseClaimList('<think>1. 还在想').ok).toBe(false);
    expect(parseClaimList('  \n').ok).toBe(false);
  });

  it('keeps exact duplicates once, in first-seen order', () => {
    expect(parseClaimList('1. 甲。\n2. 乙。\n3. 甲。')).toEqual({ ok: true, claims: ['甲。', '乙。'] });
  });
});

describe('parseLabels', () => {
  it('reads Chinese labels with half- or full-width colons and any numbering prefix', () => {
    expect(parseLabels('1: 蕴含\n2：中立\n3. 矛盾\n4、蕴涵\n[5] 中立\n**6**: **矛盾**。', 6)).toEqual({
      ok: true,
      labels: ['entailment', 'neutral', 'contradiction', 'entailment', 'neutral', 'contradiction'],
    });
  });

  it('reads the English labels, case-insensitive, and puts labels in claim order', () => {
    expect(parseLabels('2: NEUTRAL\n1: Entailment\n3: contradiction.', 3)).toEqual({ ok: true, labels: ['entailment', 'neutral', 'contradiction'] });
  });

  it('fails on a missing label, naming the claim, and never defaults to neutral', () => {
    const parsed = parseLabels('1: 蕴含\n3: 矛盾', 3);
    expect(parsed).toEqual({ ok: false, error: expect.stringMatching(/no label for claim 2\b/) });
  });

  it('accepts a repeated identical label and fails on conflicting ones', () => {
    expect(parseLabels('1: 蕴含\n1: 蕴含', 1)).toEqual({ ok: true, labels: ['entailment'] });
    expect(parseLabels('1: 蕴含\n1: 矛盾', 1)).toEqual({ ok: false, error: expect.stringMatching(/conflicting labels for claim 1 \(entailment, contradiction\)/) });
  });

  it('fails on an unknown label or a claim number out of range, naming it', () => {
    expect(parseLabels('1: 蕴含\n2: 不确定', 2)).toEqual({ ok: false, error: expect.stringMatching(/unknown label for claim 2: «不确定»/) });
    expect(parseLabels('1: 蕴含、中立或矛盾', 1).ok).toBe(false);
    expect(parseLabels('1: 蕴含\n2: 中立', 1)).toEqual({ ok: false, error: expect.stringMatching(/label for claim 2, but there is 1 claim/) });
  });

  it('ignores an echoed claim where the same number also has a label, and reasoning before the labels', () => {
    expect(parseLabels('<think>1: 矛盾</think>\n1. 李靖进封代国公。\n1: 蕴含', 1)).toEqual({ ok: true, labels: ['entailment'] });
  });
});

describe('the prompts', () => {
  it('give the extractor the question as context and tell it to answer 无 when there is no claim', () => {
    const user = extractionMessages({ question: '李靖有哪些战功？', text: '他进封代国公。', role: 'response' })[1]!.content;
    expect(user).toContain('李靖有哪些战功？');
    expect(user).toContain('他进封代国公。');
    expect(user).toContain('只输出一个字：无');
    expect(extractionMessages({ question: 'q', text: 't', role: 'reference' })[1]!.content).toContain('【参考答案】');
  });

  it('number the claims for the checker, forbid its own knowledge and ask for one line per claim', () => {
    const messages = checkingMessages({ claims: CLAIMS, text: PASSAGE, question: '李靖有哪些战功？' });
    const user = messages[1]!.content;
    expect(user).toContain(`1. ${CLAIMS[0]}\n2. ${CLAIMS[1]}\n3. ${CLAIMS[2]}`);
    expect(user).toContain('恰好输出 3 行');
    expect(messages.map((m) => m.content).join('\n')).toContain('不要用你自己的历史知识');
    expect(PROMPT_VERSION).toMatch(/\S/);
  });
});

/** The server answers what the current test sets; requests are counted per test. */
let respond: Responder = () => '无';
let server: OpenAIServer;
let requestsBefore = 0;
const fast = { retries: 0, retryBaseMs: 1, retryMaxMs: 5 };
const generator = (params: Partial<OpenAIParams> = {}) => new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: server.url, model: 'claims-test', ...fast, ...params }));
const userMessage = (request: ChatRequestBody) => request.messages.find((m) => m.role === 'user')?.content ?? '';
const requestsInThisTest = () => server.chatRequests().length - requestsBefore;

beforeAll(async () => {
  server = await startOpenAIServer({ respond: (request) => respond(request) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  requestsBefore = server.chatRequests().length;
});

describe('the LLM claim extractor', () => {
  it('returns the parsed claims with the usage the server reported', async () => {
    respond = () => '1. 李靖于贞观四年击败颉利可汗。\n2. 李靖进封代国公。';
    const outcome = await createLlmClaimExtractor(generator()).extract({ question: '李靖有哪些战功？', text: '他于贞观四年击败颉利可汗，进封代国公。', role: 'response' });
    expect(outcome).toMatchObject({ ok: true, claims: ['李靖于贞观四年击败颉利可汗。', '李靖进封代国公。'] });
    // The test server reports characters as tokens.
    const request = server.chatRequests().at(-1)!.body as ChatRequestBody;
    const promptChars = request.messages.reduce((n, m) => n + String(m.content).length, 0);
    expect(outcome.usage).toEqual({ calls: 1, promptTokens: promptChars, completionTokens: '1. 李靖于贞观四年击败颉利可汗。\n2. 李靖进封代国公。'.length, estimated: false });
  });

  it('strips a reasoning block before reading the claims', async () => {
    respond = () => '<think>先找出人名。1. 不是陈述</think>\n1. 李靖进封代国公。';
    const outcome = await createLlmClaimExtractor(generator()).extract({ question: 'q', text: '李靖进封代国公。', role: 'reference' });
    expect(outcome).toMatchObject({ ok: true, claims: ['李靖进封代国公。'] });
  });

  it('takes 无 as no claims, and makes no call for an empty text', async () => {
    respond = () => '无';
    expect(await createLlmClaimExtractor(generator()).extract({ question: 'q', text: '资料中没有相关信息。', role: 'response' })).toMatchObject({ ok: true, claims: [] });
    const before = requestsInThisTest();
    expect(await createLlmClaimExtractor(generator()).extract({ question: 'q', text: '  ', role: 'response' })).toEqual({
      ok: true,
      claims: [],
      usage: { calls: 0, promptTokens: 0, completionTokens: 0, estimated: false },
    });
    expect(requestsInThisTest()).toBe(before);
  });

  it('reports an unreadable reply as a failure after its retries, never as an empty claim list', async () => {
    respond = () => '李靖是唐朝名将，战功赫赫。';
    const outcome = await createLlmClaimExtractor(generator(), { retries: 1 }).extract({ question: 'q', text: 't', role: 'response' });
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/no numbered claims.*after 2 attempts/) });
    expect(outcome.usage.calls).toBe(2);
    expect(requestsInThisTest()).toBe(2);
  });

  it('estimates the tokens of a generator that reports none', async () => {
    const silent: Generator = { name: 'silent', model: 'm', describe: () => ({ name: 'silent' }), generate: async () => ({ text: '1. 李靖进封代国公。', raw: '1. 李靖进封代国公。' }) };
    const outcome = await createLlmClaimExtractor(silent).extract({ question: 'q', text: '李靖进封代国公。', role: 'response' });
    expect(outcome.usage.estimated).toBe(true);
    // 8 CJK characters (the full stop included) + ceil(3 / 4) for `1. `.
    expect(outcome.usage.completionTokens).toBe(9);
    expect(outcome.usage.promptTokens).toBeGreaterThan(100);
  });
});

describe('the LLM claim checker', () => {
  it('returns one label per claim, in claim order', async () => {
    respond = () => '1: 蕴含\n2：蕴含\n3: 中立';
    const outcome = await createLlmClaimChecker(generator()).check({ claims: CLAIMS, text: PASSAGE, question: '李靖有哪些战功？' });
    expect(outcome).toMatchObject({ ok: true, labels: ['entailment', 'entailment', 'neutral'], usage: { calls: 1, estimated: false } });
    expect(userMessage(server.chatRequests().at(-1)!.body as ChatRequestBody)).toContain(`3. ${CLAIMS[2]}`);
  });

  it('accepts the English labels', async () => {
    respond = () => '1: Entailment\n2: entailment\n3: CONTRADICTION';
    const outcome = await createLlmClaimChecker(generator()).check({ claims: CLAIMS, text: PASSAGE, question: 'q' });
    expect(outcome).toMatchObject({ ok: true, labels: ['entailment', 'entailment', 'contradiction'] });
  });

  it('strips a reasoning block before reading the labels', async () => {
    respond = () => '<think>1: 矛盾？不，原文写了。</think>\n1: 蕴含';
    const outcome = await createLlmClaimChecker(generator()).check({ claims: [CLAIMS[1]!], text: PASSAGE, question: 'q' });
    expect(outcome).toMatchObject({ ok: true, labels: ['entailment'] });
  });

  it('retries a reply missing a label with fresh calls past the response cache, then reports it as a failure, never as neutral', async () => {
    respond = () => '1: 蕴含\n3: 中立';
    const cache = join(mkdtempSync(join(tmpdir(), 'hisrag-claims-')), 'responses.sqlite');
    const outcome = await createLlmClaimChecker(generator({ cache }), { retries: 2 }).check({ claims: CLAIMS, text: PASSAGE, question: 'q' });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatch(/no label for claim 2\b.*after 3 attempts/);
    expect(outcome).not.toHaveProperty('labels');
    // Every attempt reached the server: a retry from the cache would replay the same reply.
    expect(requestsInThisTest()).toBe(3);
    expect(outcome.usage.calls).toBe(3);
  });

  it('takes a retry that comes back complete', async () => {
    let calls = 0;
    respond = () => (++calls === 1 ? '1: 蕴含' : '1: 蕴含\n2: 矛盾');
    const outcome = await createLlmClaimChecker(generator(), { retries: 2 }).check({ claims: CLAIMS.slice(0, 2), text: PASSAGE, question: 'q' });
    expect(outcome).toMatchObject({ ok: true, labels: ['entailment', 'contradiction'], usage: { calls: 2 } });
  });

  it('makes no call for no claims, and throws on more claims than claimsPerCall', async () => {
    const checker = createLlmClaimChecker(generator(), { claimsPerCall: 2 });
    expect(checker.claimsPerCall).toBe(2);
    expect(await checker.check({ claims: [], text: PASSAGE, question: 'q' })).toMatchObject({ ok: true, labels: [], usage: { calls: 0 } });
    await expect(checker.check({ claims: CLAIMS, text: PASSAGE, question: 'q' })).rejects.toThrow(/more than claimsPerCall \(2\)/);
    expect(requestsInThisTest()).toBe(0);
  });

  it('reports an endpoint that only returns empty completions as a failure', async () => {
    const empty = await startOpenAIServer({ faults: { rate: 1, kinds: ['empty'], seed: 1 } });
    try {
      const gen = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: empty.url, model: 'm', ...fast }));
      const outcome = await createLlmClaimChecker(gen, { retries: 1 }).check({ claims: CLAIMS, text: PASSAGE, question: 'q' });
      expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/empty completion/) });
    } finally {
      await empty.close();
    }
  });
});

describe('an interrupted run', () => {
  it('stops at the aborted call instead of retrying it', async () => {
    let calls = 0;
    const aborting: Generator = {
      name: 'aborting',
      model: 'm',
      describe: () => ({ name: 'aborting' }),
      generate: async (_messages, options) => {
        calls++;
        throw options?.signal?.reason ?? new Error('not aborted');
      },
    };
    const controller = new AbortController();
    controller.abort(new Error('interrupted'));
    await expect(createLlmClaimChecker(aborting, { retries: 3 }).check({ claims: CLAIMS, text: PASSAGE, question: 'q' }, { signal: controller.signal })).rejects.toThrow('interrupted');
    expect(calls).toBe(1);
  });
});

describe('an endpoint that is down', () => {
  it('throws ServiceUnavailableError from the extractor and the checker instead of reporting a failed check', async () => {
    // Find a free port, then leave it closed: every request is refused.
    const probe = await startOpenAIServer();
    const url = probe.url;
    await probe.close();
    const down = () => new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: url, model: 'm', retries: 50, retryBaseMs: 5, retryMaxMs: 10, unavailableAfterMs: 100 }));
    await expect(createLlmClaimExtractor(down()).extract({ question: 'q', text: 't', role: 'response' })).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(createLlmClaimChecker(down()).check({ claims: CLAIMS, text: PASSAGE, question: 'q' })).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('fingerprints', () => {
  it('tell extractor from checker and model from model, and ignore how requests are sent', () => {
    const base = createLlmClaimChecker(generator());
    expect(base.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(createLlmClaimChecker(generator()).fingerprint).toBe(base.fingerprint);
    expect(createLlmClaimChecker(generator({ concurrency: 9, timeoutMs: 5, retries: 3 }), { retries: 5, claimsPerCall: 3 }).fingerprint).toBe(base.fingerprint);
    expect(createLlmClaimExtractor(generator()).fingerprint).not.toBe(base.fingerprint);
    expect(createLlmClaimChecker(generator({ model: 'other' })).fingerprint).not.toBe(base.fingerprint);
    expect(createLlmClaimChecker(generator({ temperature: 0.7 })).fingerprint).not.toBe(base.fingerprint);
  });
});

describe('the registry entries', () => {
  it("'llm' resolves its generator spec through the generators registry, with defaults", async () => {
    respond = () => '1: 蕴含';
    const spec = { generator: { name: 'openai', baseURL: server.url, model: 'claims-test', ...fast } };
    const checker = await llmClaimChecker.create(llmClaimChecker.params.parse(spec), undefined);
    expect(checker.claimsPerCall).toBe(5);
    expect(checker.describe()).toMatchObject({ name: 'llm', retries: 2, claimsPerCall: 5, generator: { name: 'openai', model: 'claims-test' } });
    expect(await checker.check({ claims: ['甲。'], text: '甲。', question: 'q' })).toMatchObject({ ok: true, labels: ['entailment'] });
    const extractor = await llmClaimExtractor.create(llmClaimExtractor.params.parse(spec), undefined);
    expect(extractor).toMatchObject({ name: 'llm', standIn: false });
    expect(llmClaimChecker.params.safeParse({ ...spec, claimsPerCall: 21 }).success).toBe(false);
    expect(llmClaimExtractor.params.safeParse({ ...spec, claimsPerCall: 3 }).success).toBe(false);
  });

  it("'openai' takes the OpenAI generator params inline, retries for replies and httpRetries for HTTP", async () => {
    respond = () => '1. 甲。';
    const params = openaiClaimChecker.params.parse({ baseURL: server.url, model: 'claims-test', retryBaseMs: 1, retryMaxMs: 5, retries: 1, httpRetries: 0, claimsPerCall: 3 });
    const checker = await openaiClaimChecker.create(params, undefined);
    expect(checker.describe()).toMatchObject({ retries: 1, claimsPerCall: 3, generator: { name: 'openai', retries: 0 } });
    expect(openaiClaimChecker.params.safeParse({ baseURL: server.url, model: 'm', unknown: 1 }).success).toBe(false);
    const extractor = await openaiClaimExtractor.create(openaiClaimExtractor.params.parse({ baseURL: server.url, model: 'claims-test', retryBaseMs: 1, retryMaxMs: 5 }), undefined);
    expect(await extractor.extract({ question: 'q', text: '甲。', role: 'response' })).toMatchObject({ ok: true, claims: ['甲。'] });
    expect(extractor.describe()).toMatchObject({ retries: 2, generator: { retries: 5 } });
    expect(openaiClaimExtractor.params.safeParse({ baseURL: server.url, model: 'm', claimsPerCall: 3 }).success).toBe(false);
  });
});
