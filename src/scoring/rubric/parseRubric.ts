import type { RubricItem } from '../types.js';
import type { ScoringCompat } from '../compat.js';

const ITEM_START = /\n(?=\s*\d+[、【.])/;
const LEADING_NUMBER = /^\s*(\d+)/;
/** The reference's weight marker; hisrag also allows spaces inside the braces (`{ +5 }`). */
const REFERENCE_WEIGHT = /\{[+-]?\s*(\d+)\s*\}/g;
const WEIGHT = /\{\s*[+-]?\s*(\d+)\s*\}/g;
/** What may follow a half's header word before its first item: `（共20分）`, `：`, markdown `**`. */
const HEADER_TAIL = /^[\s*#】\]]*(?:[（(][^）)\n]*[）)])?[\s*#】\]]*[:：]?[\s*]*/;

/** `加分项_3` / `减分项_1`: the key the judge answers with. */
export function verdictKey(item: Pick<RubricItem, 'half' | 'number'>): string {
  return `${item.half === 'bonus' ? '加分项' : '减分项'}_${item.number}`;
}

/** Full-width forms a hand-typed rubric often carries (｛＋５｝, １．) → ASCII. */
function normaliseWidths(text: string): string {
  return text
    .replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0))
    .replace(/｛/g, '{')
    .replace(/｝/g, '}')
    .replace(/＋/g, '+')
    .replace(/[－—]/g, (m) => (m === '－' ? '-' : m))
    .replace(/．/g, '.');
}

/**
 * Parses a ProHist-Bench rubric into weighted items. The bonus half is everything before the
 * first `减分项`, the deduction half everything after it; numbered items (`1、` `1.` `1【`) start
 * a line, may run over several lines, and weigh the sum of their `{+N}`/`{-N}` markers
 * (sign ignored, as in the reference; deductions become negative). Items without weight are
 * dropped, and a repeated number keeps its last item, as in the reference.
 *
 * An item standing on the header line itself (`加分项：1、…{+5}`) is kept by default; with
 * `compat: 'reference'` it is dropped, reproducing the published scorer.
 */
export function parseRubric(text: string, options: { compat?: ScoringCompat } = {}): RubricItem[] {
  const compat = options.compat ?? 'hisrag';
  const source = compat === 'reference' ? text : normaliseWidths(text.replace(/\r\n?/g, '\n'));
  const cut = source.indexOf('减分项');
  const bonusPart = cut === -1 ? source : source.slice(0, cut);
  const deductionPart = cut === -1 ? '' : source.slice(cut + '减分项'.length);
  return [
    ...parseHalf(bonusPart, 'bonus', compat),
    ...parseHalf(deductionPart, 'deduction', compat),
  ];
}

function parseHalf(part: string, half: RubricItem['half'], compat: ScoringCompat): RubricItem[] {
  const trimmed = part.trim();
  if (!trimmed) return [];
  const chunks = trimmed.split(ITEM_START);
  const first = chunks[0] ?? '';
  if (!LEADING_NUMBER.test(first)) {
    const onHeaderLine = compat === 'reference' ? null : itemAfterHeader(first, half);
    if (onHeaderLine === null) chunks.shift();
    else chunks[0] = onHeaderLine;
  }
  const byNumber = new Map<number, RubricItem>();
  for (const chunk of chunks) {
    const numberMatch = LEADING_NUMBER.exec(chunk);
    if (!numberMatch) continue;
    let total = 0;
    for (const weight of chunk.matchAll(compat === 'reference' ? REFERENCE_WEIGHT : WEIGHT)) total += Number(weight[1]);
    if (total <= 0) continue;
    const number = Number(numberMatch[1]);
    const itemText = chunk.slice(numberMatch[0].length).replace(/^\s*[、.]\s*/, '').trim();
    byNumber.delete(number); // a repeated number replaces the earlier item, as a dict would
    byNumber.set(number, { half, number, text: itemText, weight: half === 'bonus' ? total : -total });
  }
  return [...byNumber.values()];
}

/** The text of an item that starts on the header's own line, or null when there is none. */
function itemAfterHeader(first: string, half: RubricItem['half']): string | null {
  // The deduction half starts right after the word `减分项`; the bonus half contains its header.
  let rest = first;
  if (half === 'bonus') {
    const at = first.indexOf('加分项');
    if (at === -1) return null;
    rest = first.slice(at + '加分项'.length);
  }
  rest = rest.replace(HEADER_TAIL, '');
  return /^\d+[、【.]/.test(rest) ? rest : null;
}

/** Σ of bonus weights: the denominator of the Rubric Score. */
export function bonusTotal(items: readonly RubricItem[]): number {
  return items.filter((item) => item.half === 'bonus').reduce((sum, item) => sum + item.weight, 0);
}
