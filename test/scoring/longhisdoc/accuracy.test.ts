import { describe, expect, it } from 'vitest';
import { scoreLongHisDoc } from '../../../src/scoring/longhisdoc/accuracy.js';
import { anls } from '../../../src/scoring/longhisdoc/anls.js';

describe('anls', () => {
  it('is 1 − edit distance / longer length', () => {
    expect(anls('赵庄姬', '赵庄姬')).toBe(1);
    expect(anls('赵庄', '赵庄姬')).toBeCloseTo(2 / 3);
  });

  it('cuts a value of 0.5 or less to 0', () => {
    expect(anls('季文', '季文子的')).toBe(0); // exactly 0.5
    expect(anls('伯', '伯牛')).toBe(0);
    expect(anls('甲乙丙', '甲乙丙丁')).toBeCloseTo(0.75);
  });

  it('converts traditional characters to simplified on both sides', () => {
    expect(anls('陸行直', '陆行直')).toBe(1);
    expect(anls('趙莊姬', '赵庄姬')).toBe(1);
  });
});

const score = (answerType: Parameters<typeof scoreLongHisDoc>[0]['answerType'], gold: string | Array<string | number>, response: string, extracted: string) =>
  scoreLongHisDoc({ answerType, gold, response, extracted });

describe('scoreLongHisDoc', () => {
  it('Str takes the better of the raw response and the extracted answer', () => {
    expect(score('Str', '伯牛', '伯牛', '驻扎在伯牛的军队')).toBe(1);
    expect(score('Str', '伯牛', '诸侯的军队驻扎在伯牛一带', '伯牛')).toBe(1);
    expect(score('Str', '伯牛', '不知道', '不知道')).toBe(0);
  });

  it('Int matches an Arabic or a Chinese numeral in the gold list', () => {
    expect(score('Int', ['3', '三'], '三天', '3')).toBe(1);
    expect(score('Int', ['3', '三'], '三天', '三')).toBe(1);
    expect(score('Int', ['64000', '六万四千'], '', '六万四千')).toBe(1);
    expect(score('Int', ['七十六千', 76000], '', '76000')).toBe(1);
    expect(score('Int', ['3', '三'], '四天', '4')).toBe(0);
    expect(score('Int', ['3', '三'], '', 'failed')).toBe(0);
  });

  it('Enum compares letters case-insensitively', () => {
    expect(score('Enum', 'B', '选b', 'b')).toBe(1);
    expect(score('Enum', 'B', 'A', 'A')).toBe(0);
  });

  it('Bool compares 是/否', () => {
    expect(score('Bool', '是', '是的，符合', '是')).toBe(1);
    expect(score('Bool', '否', '是的', '是')).toBe(0);
  });

  it('None scores 1 only when the extraction says 无法回答', () => {
    expect(score('None', '无法回答', '书中未提及', '无法回答')).toBe(1);
    expect(score('None', '无法回答', '死了三千人', 'hallucinated')).toBe(0);
  });

  it('List averages the best match per gold element', () => {
    expect(score('List', ['伏羲', '神农', '黄帝'], '', '["伏羲", "神农", "黄帝"]')).toBe(1);
    expect(score('List', ['伏羲', '神农', '黄帝'], '', '["伏羲", "神农"]')).toBeCloseTo(2 / 3);
  });

  it('List penalises extra predictions by min(1, |gold|/|pred|)^0.5', () => {
    expect(score('List', ['伏羲', '神农'], '', '["伏羲", "神农", "黄帝", "炎帝"]')).toBeCloseTo(Math.sqrt(0.5));
  });

  it('List compares page numbers exactly rather than by ANLS', () => {
    expect(score('List', [15, 16], '', '[15, 115]')).toBeCloseTo(0.5);
    expect(score('List', [15, 16], '', '["15", "16"]')).toBe(1);
  });

  it('List scores 0 for an empty or unreadable prediction', () => {
    expect(score('List', ['伏羲'], '', '[]')).toBe(0);
    expect(score('List', ['伏羲'], '', '')).toBe(0);
  });
});
