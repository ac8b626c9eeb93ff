import { stripThink } from '../scoring/stripThink.js';

export type ListwiseParse = { order: number[]; missing: number } | { error: string };

/**
 * Reads the order an LLM gave for `count` candidates numbered 1..count. Accepts the usual
 * shapes — `[3] > [1] > [2]`, `3, 1, 2`, a JSON list, one id per line, full-width brackets —
 * after dropping any `</think>` reasoning. Ids out of range are ignored; repeats count once;
 * candidates the answer leaves out follow in their first-stage order (`missing` says how many).
 * An answer naming no candidate at all is unusable.
 */
export function parseListwiseAnswer(answer: string, count: number): ListwiseParse {
  const text = stripThink(answer).normalize('NFKC');
  const bracketed = [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  const ids = bracketed.length ? bracketed : [...text.matchAll(/(?<![\d.])(\d+)(?![\d.])/g)].map((m) => Number(m[1]));
  const seen = new Set<number>();
  for (const id of ids) if (id >= 1 && id <= count) seen.add(id);
  if (seen.size === 0) return { error: text.trim() ? `names no candidate id between 1 and ${count}: "${text.trim().slice(0, 80)}"` : 'empty answer' };
  const order = [...seen].map((id) => id - 1);
  const missing = count - order.length;
  for (let i = 0; i < count; i++) if (!seen.has(i + 1)) order.push(i);
  return { order, missing };
}
