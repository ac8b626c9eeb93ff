import type { RegistryEntry } from '../../registry.js';
import { parseInteger } from '../../text/chineseNumerals.js';
import { parseListAnswer } from '../longhisdoc/parseList.js';
import { stripThink } from '../stripThink.js';
import type { AnswerExtractor } from '../types.js';
import { rulesExtractorSchema } from './rulesSchema.js';

/** Phrases by which an answer declines: the None type's `无法回答`. */
const DECLINES = /无法回答|无法确定|无法得知|无从得知|无法从|不能回答|未提及|没有提及|未曾提及|并未记载|没有记载|未记载|未见记载|不得而知|没有相关|未提供|没有提供/;
/** `答案：…` / `答案是…` / `最终答案为…`: what follows is the answer proper. */
const ANSWER_MARKER = /(?:最终答案|答案|回答|结论)\s*(?:是|为|应为|应是)?\s*[:：]?\s*/g;
const CHINESE_NUMERAL_RUN = /[零〇一二两三四五六七八九十百千万亿廿卅壹贰叁肆伍陆柒捌玖拾佰仟萬億]+/;
const ARABIC_RUN = /\d[\d,，]*(?:\.\d+)?\s*[万亿]?/;

/** The part of an answer after its last `答案：` marker, or the whole answer. */
function answerPart(text: string): string {
  const matches = [...text.matchAll(ANSWER_MARKER)];
  const last = matches.at(-1);
  const tail = last && last.index !== undefined ? text.slice(last.index + last[0].length) : text;
  return tail.trim() || text.trim();
}

/** First clause: up to the first sentence end or line break, without wrapping quotes. */
function firstClause(text: string): string {
  const clause = text.split(/[。！？!?\n；;]/)[0] ?? '';
  return clause
    .trim()
    .replace(/^["'“”‘’「」『』*]+|["'“”‘’「」『』*，,。.]+$/g, '')
    .trim();
}

function extractBool(text: string): string {
  const head = firstClause(answerPart(text));
  if (/^(否|不是|不对|不符合|不正确|错误|没有|并非|非)/.test(head)) return '否';
  if (/^(是|对|正确|符合|确实)/.test(head)) return '是';
  const negative = /不符合|不是|不正确|错误|否/.exec(text);
  const positive = /符合|是的|正确|是/.exec(text);
  if (negative && (!positive || negative.index <= positive.index)) return '否';
  if (positive) return '是';
  return '';
}

function extractOption(text: string): string {
  const boxed = [...text.matchAll(/\\boxed\{[^A-Za-z]*([A-Za-z])[^}]*\}/g)].at(-1);
  if (boxed) return boxed[1]!.toUpperCase();
  const stated = /(?:答案|选项|选择|应选|选)\s*(?:是|为|应为)?\s*[:：]?\s*[（(【[]?\s*([A-H])(?![A-Za-z])/.exec(text);
  if (stated) return stated[1]!;
  const alone = /^\s*[（(【[]?\s*([A-H])\s*[）)】\]]?(?:[.．、:：\s]|$)/.exec(text);
  if (alone) return alone[1]!;
  const any = /(?<![A-Za-z])([A-H])(?![A-Za-z])/.exec(text);
  return any ? any[1]! : '';
}

function extractInteger(text: string): string {
  const part = answerPart(text);
  const arabic = ARABIC_RUN.exec(part);
  const chinese = CHINESE_NUMERAL_RUN.exec(part);
  const candidates = [arabic, chinese]
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => a.index - b.index);
  for (const match of candidates) {
    const value = parseInteger(match[0].replace(/\s/g, ''));
    if (value !== null) return String(value);
  }
  return '';
}

function extractList(text: string): string {
  const part = /[[［【]/.test(text) ? text.slice(text.search(/[[［【]/)) : firstClause(answerPart(text));
  const list = parseListAnswer(part) ?? [];
  return JSON.stringify(list);
}

/** The answer types whose format both extractors (rules and an LLM's output) read the same way. */
export const TYPED_EXTRACTIONS = new Map<string, (text: string) => string>([
  ['Bool', extractBool],
  ['Enum', extractOption],
  ['Int', extractInteger],
  ['List', extractList],
]);

/** Offline rule-based extraction into each answer type's format (see DESIGN.md). */
export function extractByRules(response: string, answerType: string): string {
  const text = stripThink(response).trim();
  if (!text) return '';
  if (answerType === 'None') return DECLINES.test(text) ? '无法回答' : 'hallucinated';
  const typed = TYPED_EXTRACTIONS.get(answerType);
  if (typed) return typed(text);
  return DECLINES.test(firstClause(text)) ? '无法回答' : firstClause(answerPart(text));
}

export const rulesExtractor: RegistryEntry<Record<string, never>, AnswerExtractor, void> = {
  ...rulesExtractorSchema,
  create: () => ({
    name: 'rules',
    extract: async ({ response, answerType }) => extractByRules(response, answerType),
  }),
};
