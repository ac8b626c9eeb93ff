import { createHash } from 'node:crypto';
import type { ChatRequestBody, ChatReply, Responder } from '../helpers/openaiServer.js';

/**
 * Deterministic stand-ins behind the local OpenAI-protocol server (test/helpers/openaiServer.ts)
 * for the diagnostics tests: a claim extractor and a claim checker that read hisrag's Chinese
 * prompts (src/diagnostics/claims/prompts.ts) the way a model would, and an answering model for
 * `hisrag run`. Every reply depends only on the request, never on timing or on what came before,
 * so two diagnoses of the same run directory must give the same labels.
 */

const userText = (request: ChatRequestBody) => request.messages.filter((m) => m.role === 'user').map((m) => m.content ?? '').join('\n');

/** CJK characters and ASCII words/digits of a text, as bigrams (CJK) and tokens (ASCII). */
export function contentBigrams(text: string): Set<string> {
  const keys = new Set<string>();
  const cjk = [...text.replace(/[^\u3400-\u9fff]+/gu, '|')].join('');
  for (const run of cjk.split('|')) {
    const chars = [...run];
    if (chars.length === 1) keys.add(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) keys.add(chars[i]! + chars[i + 1]!);
  }
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) keys.add(word);
  return keys;
}

/** Share of a claim's content keys that occur in the text (0 for a claim without content). */
export function coverage(claim: string, text: string): number {
  const keys = contentBigrams(claim);
  if (keys.size === 0) return 0;
  const inText = contentBigrams(text);
  let found = 0;
  for (const key of keys) if (inText.has(key)) found++;
  return found / keys.size;
}

/**
 * The checker's lexical rule: most of the claim's content is in the text → 蕴含; some of it (the
 * text talks about the same names but says something else) → 矛盾; little → 中立. All three
 * labels occur, so contradiction-dependent figures are exercised too.
 */
export function lexicalLabel(claim: string, text: string): '蕴含' | '中立' | '矛盾' {
  const c = coverage(claim, text);
  return c >= 0.5 ? '蕴含' : c >= 0.25 ? '矛盾' : '中立';
}

/** The text's sentences (split after 。！？； and newlines), each with some CJK content. */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(/(?<=[。！？；!?;\n])/u)) {
    const sentence = piece.replace(/\s+/g, ' ').trim();
    if ((sentence.match(/[\u3400-\u9fff]/gu) ?? []).length < 2) continue;
    if (!out.includes(sentence)) out.push(sentence);
  }
  return out;
}

const EXTRACTION = /\n【(回答|参考答案)】\n([\s\S]*?)\n\n【要求】/u;
const CHECKING = /【文字】\n([\s\S]*?)\n\n【陈述】\n([\s\S]*?)\n\n【判断标准】/u;

export function isExtractionRequest(request: ChatRequestBody): boolean {
  return EXTRACTION.test(userText(request)) && userText(request).includes('逐条列出');
}

export function isCheckingRequest(request: ChatRequestBody): boolean {
  return CHECKING.test(userText(request));
}

/** Extraction: the text's sentences as numbered claims (无 when it has none). */
export function extractionReply(request: ChatRequestBody): string {
  const match = EXTRACTION.exec(userText(request));
  if (!match) throw new Error('not an extraction prompt');
  const claims = sentencesOf(match[2]!);
  return claims.length ? claims.map((claim, i) => `${i + 1}. ${claim}`).join('\n') : '无';
}

/** Checking: one `n: label` line per claim, by the lexical rule against the prompt's text. */
export function checkingReply(request: ChatRequestBody): string {
  const prompt = userText(request);
  const match = CHECKING.exec(prompt);
  if (!match) throw new Error('not a checking prompt');
  const text = match[1]!;
  const claims = new Map<number, string>();
  for (const line of match[2]!.split('\n')) {
    const numbered = /^(\d+)\. (.*)$/u.exec(line);
    if (numbered) claims.set(Number(numbered[1]), numbered[2]!);
  }
  const n = Number(/恰好输出 (\d+) 行/u.exec(prompt)?.[1] ?? claims.size);
  return Array.from({ length: n }, (_, i) => `${i + 1}: ${lexicalLabel(claims.get(i + 1) ?? '', text)}`).join('\n');
}

/** The extractor and checker in one responder (what a judge endpoint serving both would do). */
export const claimResponder: Responder = (request) => {
  if (isCheckingRequest(request)) return checkingReply(request);
  if (isExtractionRequest(request)) return extractionReply(request);
  throw new Error(`claimResponder: neither an extraction nor a checking prompt: ${userText(request).slice(0, 80)}`);
};

/** The claim responder answering each request after `ms` milliseconds (a diagnosis slow enough to interrupt). */
export function delayedClaimResponder(ms: number): Responder {
  return async (request) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return claimResponder(request);
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * A deterministic answering model for `hisrag run`: with passages, the first sentences of the two
 * passages sharing most with the question, plus (for some prompts) a sentence of its own that no
 * passage states; closed-book, a guess from a short fixed list. Reply depends on the prompt only.
 */
export const answerResponder: Responder = (request): ChatReply => {
  const prompt = userText(request);
  const question = /【问题】([^\n]*)/u.exec(prompt)?.[1] ?? prompt.slice(-60);
  const passages = [...prompt.matchAll(/【资料\d+】[^\n]*\n([^\n]+)/gu)].map((m) => m[1]!);
  const h = digest(prompt);
  const own = ['科举制度始于隋朝，唐朝沿用并加以完善。', '明清两代以八股文取士。', '殿试由皇帝亲自主持。', '无法回答'];
  if (passages.length === 0) return own[h[0]! % own.length]!;
  const ranked = passages.map((p, i) => ({ p, i, c: coverage(question, p) })).sort((a, b) => b.c - a.c || a.i - b.i);
  const picked = ranked.slice(0, 2).map(({ p }) => sentencesOf(p)[0] ?? p);
  if (h[1]! % 3 === 0) picked.push(own[h[2]! % 3]!);
  return picked.join('');
};
