import { describe, expect, it } from 'vitest';
import { createLlmJudge } from '../../../src/scoring/judges/llm.js';
import { judgeMessages } from '../../../src/scoring/judges/prompt.js';
import { parseRubric } from '../../../src/scoring/rubric/parseRubric.js';
import type { JudgeRequest } from '../../../src/scoring/types.js';
import { scriptedGenerator } from '../fakeGenerator.js';

const rubricText = '加分项：\n1、指出科举始于隋朝{+5}\n2、说明殿试由皇帝主持{+5}\n减分项：\n1、史实错误{-5}';
const request: JudgeRequest = {
  question: '简述科举制度的起源。',
  answer: '科举始于隋朝。',
  rubricText,
  rubricItems: parseRubric(rubricText),
};

describe('LLM judge', () => {
  it('asks a professor of Chinese history for one line per rubric item', () => {
    const [system, user] = judgeMessages(request);
    expect(system!.content).toContain('中国史教授');
    expect(user!.content).toContain('加分项_1: 0或1\n加分项_2: 0或1\n减分项_1: 0或1');
    expect(user!.content).toContain(request.answer);
  });

  it('returns the verdicts of a well-formed output', async () => {
    const judge = createLlmJudge(scriptedGenerator(['<think>嗯</think>加分项_1: 1\n加分项_2: 0\n减分项_1: 0']));
    const outcome = await judge.judge(request);
    expect(outcome).toMatchObject({ ok: true, verdicts: { 加分项_1: 1, 加分项_2: 0, 减分项_1: 0 }, attempts: 1 });
    expect(judge.model).toBe('scripted-judge');
  });

  it('retries an output that lacks an item and uses the next good one', async () => {
    const generator = scriptedGenerator(['加分项_1: 1', '加分项_1: 1\n加分项_2: 1\n减分项_1: 0']);
    const outcome = await createLlmJudge(generator).judge(request);
    expect(outcome).toMatchObject({ ok: true, attempts: 2 });
    expect(generator.calls).toHaveLength(2);
  });

  it('reports a failure with the raw output after the retries are spent', async () => {
    const generator = scriptedGenerator(['我认为答案很好。']);
    const outcome = await createLlmJudge(generator, { retries: 2 }).judge(request);
    expect(generator.calls).toHaveLength(3);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.raw).toBe('我认为答案很好。');
      expect(outcome.error).toContain('加分项_1');
    }
  });

  it('retries a call that throws', async () => {
    const outcome = await createLlmJudge(scriptedGenerator([new Error('HTTP 500'), '加分项_1: 0\n加分项_2: 0\n减分项_1: 1'])).judge(request);
    expect(outcome).toMatchObject({ ok: true, attempts: 2, verdicts: { 减分项_1: 1 } });
  });

  it('counts stray lines in an otherwise good output', async () => {
    const outcome = await createLlmJudge(scriptedGenerator(['结果：\n加分项_1: 1\n加分项_2: 0\n减分项_1: 0'])).judge(request);
    expect(outcome).toMatchObject({ ok: true, strayLines: 1 });
  });
});
