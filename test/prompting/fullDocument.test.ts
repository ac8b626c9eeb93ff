import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageText } from '../../src/prompting/messageContent.js';
import { describe, expect, it } from 'vitest';
import { parseContextBlock } from '../../src/prompting/contextBlock.js';
import { strategies } from '../../src/prompting/registry.js';
import { item } from './fixtures.js';

function ocrDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-ocr-'));
  writeFileSync(
    join(dir, 'd1.json'),
    JSON.stringify({ '0': { punc: '卷一。' }, '1': { punc: '成公三年，諸侯伐鄭。' }, '2': {}, '3': { punc: '軍次于伯牛。' } }),
  );
  return dir;
}

const lhdItem = (over = {}) =>
  item({ kind: 'longhisdoc', docId: 'd1', inputPages: [1, 2, 3, 4], evidencePages: [4], meta: { book_name: '《春秋》' }, ...over });

describe('longhisdoc-full strategy', () => {
  it('puts the input pages in page order, skipping empty pages', async () => {
    const strategy = await strategies.create({ name: 'longhisdoc-full', ocrDir: ocrDir() }, undefined);
    await strategy.prepare!([lhdItem()]);
    const built = strategy.build({ item: lhdItem(), context: null });
    const entries = parseContextBlock(messageText(built.messages.at(-1)!));
    expect(entries.map((e) => e.header)).toEqual(['《春秋》（第1页）', '《春秋》（第2页）', '《春秋》（第4页）']);
    expect(built.contextIds).toEqual(['d1-p1', 'd1-p2', 'd1-p4']);
  });

  it('uses only the pages listed in input_pages', async () => {
    const strategy = await strategies.create({ name: 'longhisdoc-full', ocrDir: ocrDir() }, undefined);
    const it2 = lhdItem({ inputPages: [2, 4] });
    await strategy.prepare!([it2]);
    expect(strategy.build({ item: it2, context: null }).contextIds).toEqual(['d1-p2', 'd1-p4']);
  });

  it('cuts later pages first to fit the budget', async () => {
    const strategy = await strategies.create({ name: 'longhisdoc-full', ocrDir: ocrDir(), contextBudget: 30 }, undefined);
    await strategy.prepare!([lhdItem()]);
    const built = strategy.build({ item: lhdItem(), context: null });
    expect(built.contextIds).toEqual(['d1-p1']);
    expect(built.truncated).toBe(2);
  });

  it('finds the OCR file through the benchmark item when the strategy has no ocrDir', async () => {
    const dir = ocrDir();
    const strategy = await strategies.create({ name: 'longhisdoc-full' }, undefined);
    const withFile = lhdItem({ meta: { book_name: '《春秋》', ocrFile: join(dir, 'd1.json') } });
    await strategy.prepare!([withFile]);
    expect(strategy.build({ item: withFile, context: null }).contextIds).toHaveLength(3);
  });

  it('says to call prepare when build comes first', async () => {
    const strategy = await strategies.create({ name: 'longhisdoc-full', ocrDir: ocrDir() }, undefined);
    expect(() => strategy.build({ item: lhdItem(), context: null })).toThrow(/prepare/);
  });
});
