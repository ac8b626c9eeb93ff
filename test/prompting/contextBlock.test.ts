import { describe, expect, it } from 'vitest';
import { extractQuestion, formatContextBlock, parseContextBlock } from '../../src/prompting/contextBlock.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import { fillTemplate } from '../../src/prompting/fillTemplate.js';

describe('context block', () => {
  it('parses back the texts it formats, blank lines inside a passage included', () => {
    const entries = [
      { title: '甲', text: '第一段。\n\n第二段。' },
      { title: '《乙》', pages: [7], text: '乙文。' },
    ];
    const parsed = parseContextBlock(`前言\n\n${formatContextBlock(entries)}\n\n【问题】问？`);
    expect(parsed.map((e) => [e.index, e.header, e.text])).toEqual([
      [1, '《甲》', '第一段。\n\n第二段。'],
      [2, '《乙》（第7页）', '乙文。'],
    ]);
  });

  it('finds the question after its marker, up to the next marker', () => {
    expect(extractQuestion('资料……\n【问题】下列正确的是？\nA. 甲\nB. 乙\n\n【要求】作答')).toBe('下列正确的是？\nA. 甲\nB. 乙');
  });

  it('falls back to the message without its context when there is no question marker', () => {
    expect(extractQuestion(`${formatContextBlock([{ title: 't', text: '资料' }])}\n问题在这里`)).toBe('问题在这里');
  });
});

describe('token estimate', () => {
  it('counts one token per CJK character and about four characters per token otherwise', () => {
    expect(estimateTokens('宋代，')).toBe(3);
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('宋abcd')).toBe(2);
  });
});

describe('fillTemplate', () => {
  it('fills the known placeholders and leaves other braces alone', () => {
    expect(fillTemplate('{question} \\boxed{AC} {other}', { question: '问' })).toBe('问 \\boxed{AC} {other}');
  });
});

describe('context titles', () => {
  it('keeps a LongHisDoc book name that already has book brackets and a note', () => {
    expect(formatContextBlock([{ title: '《貢院瑣記》（示例）', pages: [3], text: 't' }]).split('\n')[0]).toBe('【资料1】《貢院瑣記》（示例）（第3页）');
  });
});
