import { messageText } from '../../src/prompting/messageContent.js';
import { describe, expect, it } from 'vitest';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { parseContextBlock } from '../../src/prompting/contextBlock.js';
import { strategies } from '../../src/prompting/registry.js';
import { NO_CONTEXT_TEXT } from '../../src/prompting/templateStrategy.js';
import type { ChatMessage, PromptStrategy } from '../../src/prompting/types.js';
import { chunk, item } from './fixtures.js';

const rag = (params: Record<string, unknown> = {}): Promise<PromptStrategy> => strategies.create({ name: 'rag', ...params }, undefined);
const userText = (built: { messages: ChatMessage[] }) => messageText(built.messages.at(-1)!);

describe('rag strategy', () => {
  it('places the chunks with their titles before the question, in rank order', async () => {
    const built = (await rag()).build({ item: item(), context: [chunk(2), chunk(1), chunk(3)] });
    const entries = parseContextBlock(userText(built));
    expect(entries.map((e) => e.header)).toEqual(['《标题1》', '《标题2》', '《标题3》']);
    expect(built.contextIds).toEqual(['c1', 'c2', 'c3']);
    expect(userText(built).indexOf('【资料1】')).toBeLessThan(userText(built).indexOf('【问题】'));
  });

  it('shows page numbers of LongHisDoc page chunks', async () => {
    const built = (await rag()).build({
      item: item({ kind: 'longhisdoc' }),
      context: [chunk(1, { title: '《某书》', meta: { page: 12, pages: [12] } }), chunk(2, { meta: { pages: [3, 4, 5] } })],
    });
    expect(parseContextBlock(userText(built)).map((e) => e.header)).toEqual(['《某书》（第12页）', '《标题2》（第3–5页）']);
  });

  it('drops the lowest-ranked chunks over the budget and reports how many', async () => {
    const strategy = await rag({ contextBudget: 60, tokenCounter: 'chars' });
    const built = strategy.build({ item: item(), context: [chunk(1), chunk(2), chunk(3), chunk(4)] });
    expect(built.contextIds).toEqual(['c1', 'c2']);
    expect(built.truncated).toBe(2);
    expect(built.contextTokens).toBeLessThanOrEqual(60);
  });

  it('cuts the best chunk to fit when it alone exceeds the budget', async () => {
    const long = chunk(1, { text: '史'.repeat(500) });
    const built = (await rag({ contextBudget: 100 })).build({ item: item(), context: [long, chunk(2)] });
    expect(built.contextIds).toEqual(['c1']);
    expect(built.clipped).toBe(true);
    expect(built.truncated).toBe(1);
    expect(built.contextTokens).toBeLessThanOrEqual(100);
    expect(parseContextBlock(userText(built))[0]!.text.length).toBeGreaterThan(50);
  });

  it('reverses the order on request, best chunk next to the question', async () => {
    const built = (await rag({ ordering: 'reversed' })).build({ item: item(), context: [chunk(1), chunk(2), chunk(3)] });
    expect(built.contextIds).toEqual(['c3', 'c2', 'c1']);
  });

  it('puts gold chunks in the middle for gold-middle', async () => {
    const context = [1, 2, 3, 4, 5].map((r) => chunk(r));
    const built = (await rag({ ordering: 'gold-middle' })).build({ item: item({ goldChunkIds: ['c1'] }), context });
    expect(built.contextIds).toEqual(['c2', 'c3', 'c1', 'c4', 'c5']);
  });

  it('recognises LongHisDoc gold by evidence page of the same document', async () => {
    const context = [1, 2, 3].map((r) => chunk(r, { meta: { doc_id: 'd1', page: r * 10 } }));
    const built = (await rag({ ordering: 'gold-middle' })).build({
      item: item({ kind: 'longhisdoc', docId: 'd1', evidencePages: [10] }),
      context,
    });
    expect(built.contextIds).toEqual(['c2', 'c1', 'c3']);
  });

  it('truncates by rank before ordering, so ordering never changes which chunks are kept', async () => {
    const context = [1, 2, 3, 4].map((r) => chunk(r));
    const byRank = (await rag({ contextBudget: 60, tokenCounter: 'chars' })).build({ item: item(), context });
    const reversed = (await rag({ contextBudget: 60, tokenCounter: 'chars', ordering: 'reversed' })).build({ item: item(), context });
    expect([...reversed.contextIds].sort()).toEqual([...byRank.contextIds].sort());
  });

  it('says so when retrieval found nothing', async () => {
    const built = (await rag()).build({ item: item(), context: [] });
    expect(userText(built)).toContain(NO_CONTEXT_TEXT);
    expect(built.contextIds).toEqual([]);
  });

  it('combines with chain of thought through persona', async () => {
    const strategy = await rag({ persona: 'cot' });
    expect(userText(strategy.build({ item: item(), context: [chunk(1)] }))).toContain('最终答案：');
    expect(strategy.finalAnswer!('想想\n最终答案: 1069年')).toBe('1069年');
  });

  it('produces prompts the extractive generator can answer from', async () => {
    const built = (await rag()).build({ item: item(), context: [chunk(1, { text: '宋神宗即位。王安石变法始于熙宁二年。' })] });
    const answer = new ExtractiveGenerator(ExtractiveParamsSchema.parse({})).answer(built.messages);
    expect(answer).toBe('王安石变法始于熙宁二年。');
  });
});
