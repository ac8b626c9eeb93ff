import { NO, YES } from '../prompting/taskFormat.js';

/** Parsers of the short replies method steps ask for (yes/no, 1/2); null when a reply says neither. */

const withoutThinking = (text: string) => text.replace(/<think>[\s\S]*?<\/think>/g, '').trim();

/**
 * The model's yes/no: 是 → it can answer from its own knowledge, 否 → it needs material; null
 * when the reply says neither (or both) — the method then retrieves, and counts it.
 */
export function parseDecision(text: string): boolean | null {
  const reply = withoutThinking(text);
  const head = reply.replace(/^[\s"'“”‘’「」【】《》:：]*/, '');
  if (head.startsWith(YES) && !head.startsWith(`${YES}否`)) return true;
  if (head.startsWith(NO) || head.startsWith('不能') || head.startsWith('不可以')) return false;
  const yes = reply.includes(YES) || /\byes\b/i.test(reply);
  const no = reply.includes(NO) || /\bno\b/i.test(reply);
  if (yes !== no) return yes;
  return null;
}

/** `1` or `2` from a pairwise reply; null when it names neither (or both). */
export function parseChoice(text: string): 1 | 2 | null {
  const digits = [...withoutThinking(text).matchAll(/[12１２一二]/g)].map((m) => (/[1１一]/.test(m[0]) ? 1 : 2));
  const distinct = [...new Set(digits)];
  return distinct.length === 1 ? (distinct[0] as 1 | 2) : digits.length ? (digits[0] as 1 | 2) : null;
}

