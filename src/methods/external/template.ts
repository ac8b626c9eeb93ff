import type { BenchmarkItem } from '../../benchmarks/types.js';
import { parseOptions } from '../../generation/lexicalOverlap.js';

/** Fields of an item a request template may name: `{question}`, `{itemId}`, `{docId}`, `{meta.dynasty}` … */
export const TEMPLATE_FIELDS = ['question', 'itemId', 'benchmark', 'category', 'task', 'docId', 'answerType', 'options', 'evidenceModal'] as const;

const PLACEHOLDER = /\{([A-Za-z_][\w.]*)\}/g;
const WHOLE = /^\{([A-Za-z_][\w.]*)\}$/;

const known = (name: string) => (TEMPLATE_FIELDS as readonly string[]).includes(name) || /^meta\.\w+$/.test(name);

/** The value of one field for an item (`undefined` when the item has none: a ProHist question has no `docId`). */
export function itemField(item: BenchmarkItem, name: string): unknown {
  if (name.startsWith('meta.')) return item.meta[name.slice(5)];
  switch (name) {
    case 'itemId':
      return item.id;
    case 'options': {
      // Options a benchmark keeps apart, else the `A. …` lines of the question itself (LongHisDoc Enum, MCQ).
      const given = item.meta.options;
      if (Array.isArray(given)) return given;
      return parseOptions(item.question).map((o) => `${o.letter}. ${o.text}`);
    }
    default:
      return (item as Record<string, unknown>)[name];
  }
}

/** Every placeholder of a template (strings anywhere inside it), for checking against the known fields. */
function placeholders(template: unknown, out: string[] = []): string[] {
  if (typeof template === 'string') for (const m of template.matchAll(PLACEHOLDER)) out.push(m[1]!);
  else if (Array.isArray(template)) for (const v of template) placeholders(v, out);
  else if (template && typeof template === 'object') for (const v of Object.values(template)) placeholders(v, out);
  return out;
}

/** Placeholders of a template that name no item field (a typo would otherwise send `""` for every question). */
export function unknownPlaceholders(template: unknown): string[] {
  return [...new Set(placeholders(template))].filter((name) => !known(name));
}

/** The message for a template with unknown placeholders. */
export function unknownPlaceholderMessage(names: string[]): string {
  return `unknown placeholder ${names.map((n) => `{${n}}`).join(', ')} (known: ${TEMPLATE_FIELDS.map((f) => `{${f}}`).join(', ')}, {meta.<field>})`;
}

const asText = (value: unknown): string => (value === undefined || value === null ? '' : Array.isArray(value) ? value.join('；') : typeof value === 'object' ? JSON.stringify(value) : String(value));

/**
 * A JSON template with the item's fields filled in. A string that is exactly one placeholder
 * takes the field's own value (`"{options}"` → a list, an absent `{docId}` → null); placeholders
 * inside a longer string are replaced by their text (`encode` applies to each, for URLs).
 */
export function renderTemplate(template: unknown, item: BenchmarkItem, encode: (text: string) => string = (t) => t): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) {
      const value = itemField(item, whole[1]!);
      return value === undefined ? null : value;
    }
    return template.replace(PLACEHOLDER, (_, name: string) => encode(asText(itemField(item, name))));
  }
  if (Array.isArray(template)) return template.map((v) => renderTemplate(v, item, encode));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderTemplate(v, item, encode)]));
  }
  return template;
}

/** A URL template filled in: placeholders are URL-encoded. */
export function renderUrl(template: string, item: BenchmarkItem): string {
  return template.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(asText(itemField(item, name))));
}
