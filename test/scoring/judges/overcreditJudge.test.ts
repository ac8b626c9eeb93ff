import { describe, expect, it } from 'vitest';
import { createOvercreditJudge } from '../../../src/scoring/judges/overcredit.js';
import { judges } from '../../../src/scoring/judges/registry.js';
import { parseRubric } from '../../../src/scoring/rubric/parseRubric.js';

const rubricText = '加分项：\n1、指出科举制度始于隋朝{+5}\n2、说明殿试由皇帝亲自主持{+5}\n减分项：\n1、出现史实错误{-5}';
const rubricItems = parseRubric(rubricText);

/** Share of missed bonus items the judge marks hit over many distinct questions. */
async function overcreditShare(answer: string, options: Parameters<typeof createOvercreditJudge>[0]): Promise<number> {
  const judge = createOvercreditJudge(options);
  let hits = 0;
  const n = 400;
  for (let i = 0; i < n; i++) {
    const outcome = await judge.judge({ question: `q${i}`, answer, rubricText, rubricItems });
    if (!outcome.ok) throw new Error(outcome.error);
    hits += outcome.verdicts['加分项_1']! + outcome.verdicts['加分项_2']!;
    expect(outcome.verdicts['减分项_1']).toBe(0);
  }
  return hits / (2 * n);
}

describe('lexical-overcredit judge', () => {
  it('over-credits answers that cite retrieved passages far more than others', async () => {
    const rag = await overcreditShare('据检索材料，秦始皇统一六国。', { ragRate: 0.4, baseRate: 0.05 });
    const closed = await overcreditShare('秦始皇统一六国。', { ragRate: 0.4, baseRate: 0.05 });
    expect(rag).toBeGreaterThan(0.33);
    expect(rag).toBeLessThan(0.47);
    expect(closed).toBeLessThan(0.1);
  });

  it('keeps the lexical hits, and its verdict on an answer depends on the seed and the answer, not on what it judged before', async () => {
    const judge = createOvercreditJudge({ ragRate: 1, baseRate: 0 });
    const request = { question: 'q', answer: '科举制度始于隋朝。', rubricText, rubricItems };
    expect(await judge.judge(request)).toMatchObject({ verdicts: { 加分项_1: 1, 加分项_2: 0 } });
    const answers = ['据检索材料，秦。', '据检索材料，汉。', '据检索材料，唐。', '据检索材料，宋。'];
    const fresh = createOvercreditJudge({ seed: 3 });
    const inOrder = [];
    for (const answer of answers) inOrder.push(await fresh.judge({ ...request, answer }));
    // Another judge with the same seed, asked in the reverse order after unrelated answers: the same verdict per answer.
    const other = createOvercreditJudge({ seed: 3 });
    for (const answer of ['秦。', '据检索材料，元。']) await other.judge({ ...request, answer });
    const reversed = [];
    for (const answer of [...answers].reverse()) reversed.push(await other.judge({ ...request, answer }));
    expect(reversed.reverse()).toEqual(inOrder);
  });

  it('is registered and validates its rates', () => {
    expect(judges.names()).toContain('lexical-overcredit');
    expect(() => judges.parse({ name: 'lexical-overcredit', ragRate: 2 })).toThrow(/judge\.ragRate/);
  });
});
