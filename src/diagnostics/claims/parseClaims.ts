import { stripThink } from '../../scoring/stripThink.js';
import type { ClaimLabel } from '../../runFiles/diagnosis.js';

// Strict readers: an unreadable reply is an error, never a guess — a missing label read as neutral
// would silently lower every metric.

export type ParsedClaimList = { ok: true; claims: string[] } | { ok: false; error: string };
export type ParsedLabels = { ok: true; labels: ClaimLabel[] } | { ok: false; error: string };

// A number with its separator: `1.` `1、` `1．` `1)` `1：` `(1)` `（1）` `[1]` `【1】`, optionally bold
// (`**1.**`). A bare number needs its separator, or `1644年明亡` would read as claim 1644.
const SEPARATOR = '[.、．:：)）]';
const NUMBER = String.raw`(?:\[\s*(\d+)\s*\]|【\s*(\d+)\s*】|[(（]\s*(\d+)\s*[)）]|(\d+)(?=\s*(?:\*\*)?\s*${SEPARATOR}))`;
// List bullets and bold markers a model may wrap a line in.
const NUMBERED_LINE = new RegExp(String.raw`^[-*•>\s]*(?:\*\*)?\s*${NUMBER}\s*(?:\*\*)?\s*${SEPARATOR}?\s*(?:\*\*)?\s*(.*)$`);

const NONE = /^[「“"'*\s]*无[」”"'*\s。.]*$/;

const LABELS: Record<string, ClaimLabel> = {
  蕴含: 'entailment',
  // The variant spelling is common in Chinese NLI writing.
  蕴涵: 'entailment',
  中立: 'neutral',
  矛盾: 'contradiction',
  entailment: 'entailment',
  neutral: 'neutral',
  contradiction: 'contradiction',
};

interface NumberedLine {
  number: number;
  rest: string;
}

function numberedLines(text: string): { numbered: NumberedLine[]; stray: number } {
  const numbered: NumberedLine[] = [];
  let stray = 0;
  for (const raw of stripThink(text).split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('```')) continue;
    const match = NUMBERED_LINE.exec(line);
    if (!match) {
      stray++;
      continue;
    }
    const digits = match[1] ?? match[2] ?? match[3] ?? match[4]!;
    numbered.push({ number: Number(digits), rest: match[5]!.trim() });
  }
  return { numbered, stray };
}

/** An opened but never closed `<think>` (cut by max tokens) leaves no answer. */
function unclosedThink(text: string): boolean {
  return !text.includes('</think>') && text.trimStart().startsWith('<think>');
}

/**
 * Reads `1. …` claim lines; `无` alone (or as the only claim) is no claim. Stray lines are ignored
 * beside numbered claims, unreadable without any. Duplicates are kept once.
 */
export function parseClaimList(text: string): ParsedClaimList {
  if (unclosedThink(text)) return { ok: false, error: 'reasoning block never closed: no claims after it' };
  const body = stripThink(text).trim();
  if (!body) return { ok: false, error: 'empty output' };
  if (NONE.test(body)) return { ok: true, claims: [] };
  const { numbered } = numberedLines(body);
  const claims = numbered.map(({ rest }) => rest.replace(/\*\*/g, '').trim()).filter((claim) => claim !== '');
  if (claims.length === 0) return { ok: false, error: `no numbered claims in the output: «${excerpt(body)}»` };
  const real = claims.filter((claim) => !NONE.test(claim));
  return { ok: true, claims: [...new Set(real)] };
}

/** A label word, tolerating bold markers, quotes and a final full stop; case-insensitive. */
function labelOf(value: string): ClaimLabel | undefined {
  const word = value
    .replace(/\*\*/g, '')
    .replace(/^[「“"'\s]+|[」”"'\s。.]+$/g, '')
    .toLowerCase();
  return LABELS[word];
}

/**
 * Reads one label line per claim (`1: 蕴含`, `[1] Neutral` …); a missing, conflicting, unknown or
 * out-of-range label makes the whole reply an error naming the claims.
 */
export function parseLabels(text: string, n: number): ParsedLabels {
  if (unclosedThink(text)) return { ok: false, error: 'reasoning block never closed: no labels after it' };
  const found = new Map<number, Set<ClaimLabel>>();
  const unknown = new Map<number, string>();
  const outOfRange = new Set<number>();
  for (const { number, rest } of numberedLines(text).numbered) {
    const label = labelOf(rest);
    // Numbered lines that are not labels (an echoed claim) matter only where no label was given.
    if (label === undefined) {
      if (!unknown.has(number)) unknown.set(number, rest);
      continue;
    }
    if (number < 1 || number > n) {
      outOfRange.add(number);
      continue;
    }
    const labels = found.get(number) ?? new Set<ClaimLabel>();
    labels.add(label);
    found.set(number, labels);
  }
  const problems: string[] = [];
  const missing: number[] = [];
  const labels: ClaimLabel[] = [];
  for (let i = 1; i <= n; i++) {
    const given = found.get(i);
    if (given?.size === 1) labels.push([...given][0]!);
    else if (given && given.size > 1) problems.push(`conflicting labels for claim ${i} (${[...given].join(', ')})`);
    else if (unknown.has(i)) problems.push(`unknown label for claim ${i}: «${excerpt(unknown.get(i)!)}»`);
    else missing.push(i);
  }
  if (missing.length) problems.unshift(`no label for claim${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (outOfRange.size) problems.push(`label for claim ${[...outOfRange].join(', ')}, but there ${n === 1 ? 'is 1 claim' : `are ${n} claims`}`);
  return problems.length ? { ok: false, error: `${problems.join('; ')} (of ${n})` } : { ok: true, labels };
}

function excerpt(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
