import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';

/**
 * The span metrics of a record recomputed from what it stores (`retrieved[].spans`, `retrieved[].text`,
 * `goldSpans`), independently of src/scoring/spanMetrics.ts: characters as a set of `doc\u0000offset`
 * keys, the smallest covering k by trying every prefix.
 */
export function recomputeSpanMetrics(record: RunItemRecord): Record<string, number> | undefined {
  const gold = new Set<string>();
  for (const span of record.goldSpans ?? []) for (let i = span.start; i < span.end; i++) gold.add(`${span.doc}\u0000${i}`);
  if (gold.size === 0) return undefined;
  const charsOf = (list: RunItemRecord['retrieved']) => {
    const chars = new Set<string>();
    for (const passage of list) for (const span of passage.spans ?? []) for (let i = span.start; i < span.end; i++) chars.add(`${span.doc}\u0000${i}`);
    return chars;
  };
  const retrieved = charsOf(record.retrieved);
  const both = [...retrieved].filter((c) => gold.has(c)).length;
  const out: Record<string, number> = {
    charRecall: both / gold.size,
    charPrecision: retrieved.size === 0 ? 0 : both / retrieved.size,
    charIoU: both / new Set([...retrieved, ...gold]).size,
    covered: both === gold.size ? 1 : 0,
  };
  for (let k = 1; k <= record.retrieved.length && out.covered === 1; k++) {
    const top = charsOf(record.retrieved.slice(0, k));
    if ([...gold].every((c) => top.has(c))) {
      out.coverK = k;
      out.coverChars = record.retrieved.slice(0, k).reduce((sum, passage) => sum + passage.text.length, 0);
      break;
    }
  }
  return out;
}

/** The span metrics a record stored. */
export function storedSpanMetrics(record: RunItemRecord): Record<string, number> {
  const names = ['charRecall', 'charPrecision', 'charIoU', 'covered', 'coverK', 'coverChars'];
  return Object.fromEntries(Object.entries(record.retrievalMetrics ?? {}).filter(([name]) => names.includes(name)));
}
