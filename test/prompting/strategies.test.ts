import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { strategies } from '../../src/prompting/registry.js';
import type { PromptStrategy } from '../../src/prompting/types.js';
import { item } from './fixtures.js';

const create = (spec: Record<string, unknown>): Promise<PromptStrategy> => strategies.create(spec as { name: string }, undefined);
const userOf = (strategy: PromptStrategy, over = {}) => strategy.build({ item: item(over), context: null }).messages.at(-1)!.content;
const systemOf = (strategy: PromptStrategy) => strategy.build({ item: item(), context: null }).messages[0]!.content;

describe('prompting strategies', () => {
  it('registers the seven strategies', () => {
    expect(strategies.names()).toEqual(['closed-book', 'cot', 'longhisdoc-full', 'page-rag', 'prof', 'rag', 'role']);
  });

  it('closed book asks the question with its instructions and no context', async () => {
    const strategy = await create({ name: 'closed-book' });
    const built = strategy.build({ item: item(), context: null });
    expect(strategy.usesRetrieval).toBe(false);
    expect(built.messages.at(-1)!.content).toContain('【问题】王安石变法始于哪一年？');
    expect(built.messages.at(-1)!.content).not.toContain('【资料');
    expect(built).toMatchObject({ contextIds: [], truncated: 0 });
  });

  it('role casts the model as a historian', async () => {
    expect(systemOf(await create({ name: 'role' }))).toContain('历史学家');
  });

  it('prof asks for citations and era names with AD years', async () => {
    const system = systemOf(await create({ name: 'prof' }));
    expect(system).toContain('出处');
    expect(system).toContain('公元');
  });

  it('cot asks for a final answer after the marker and extracts it', async () => {
    const strategy = await create({ name: 'cot' });
    expect(userOf(strategy)).toContain('最终答案：');
    expect(strategy.finalAnswer!('分析……\n最终答案：熙宁二年（1069年）')).toBe('熙宁二年（1069年）');
    expect(strategy.finalAnswer!('没有标记的回答')).toBe('没有标记的回答');
  });

  it('asks multiple-choice answers in \\boxed{} letters', async () => {
    expect(userOf(await create({ name: 'closed-book' }), { kind: 'mcq', task: 'MCQ' })).toContain('\\boxed{');
  });

  it('gives T4 essays their length constraint', async () => {
    expect(userOf(await create({ name: 'closed-book' }), { task: 'T4', lengthConstraint: 800 })).toContain('不超过800字');
  });

  it('tells LongHisDoc questions to answer concisely or 无法回答', async () => {
    expect(userOf(await create({ name: 'closed-book' }), { kind: 'longhisdoc' })).toContain('无法回答');
  });

  it('takes inline system and template overrides', async () => {
    const strategy = await create({ name: 'role', system: '你是考官。', template: 'Q: {question} / {instructions}' });
    const built = strategy.build({ item: item(), context: null });
    expect(built.messages).toEqual([
      { role: 'system', content: '你是考官。' },
      { role: 'user', content: 'Q: 王安石变法始于哪一年？ / 请完整、准确地作答。' },
    ]);
  });

  it('sends no system message when the override is empty', async () => {
    const built = (await create({ name: 'closed-book', system: '' })).build({ item: item(), context: null });
    expect(built.messages.map((m) => m.role)).toEqual(['user']);
  });

  it('reads a template file (YAML with system and template)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hisrag-tpl-')), 'tpl.yaml');
    writeFileSync(path, 'system: 文件系统提示\ntemplate: "问：{question}"\n');
    const built = (await create({ name: 'closed-book', templateFile: path })).build({ item: item(), context: null });
    expect(built.messages.map((m) => m.content)).toEqual(['文件系统提示', '问：王安石变法始于哪一年？']);
  });

  it('overrides the per-benchmark instructions', async () => {
    const strategy = await create({ name: 'closed-book', instructions: { rubricWithLength: '限{length}字。' } });
    expect(userOf(strategy, { lengthConstraint: 300 })).toContain('限300字。');
  });

  it('refuses a retrieval template without {context}', async () => {
    await expect(create({ name: 'rag', template: '{question}' })).rejects.toThrow(ConfigError);
    await expect(create({ name: 'rag', template: '{question}' })).rejects.toThrow('{context}');
  });

  it('refuses unknown parameters with the config path', () => {
    expect(() => strategies.parse({ name: 'rag', budget: 10 }, 'strategies[2]')).toThrow(/strategies\[2\]/);
  });
});
