import { expect } from 'vitest';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { SPAN_METRICS, spanMetrics } from '../../src/scoring/spanMetrics.js';
import { codePointLength } from '../../src/text/codePoints.js';

/** The span metrics a record stored. */
export function storedSpanMetrics(record: RunItemRecord): Record<string, number> {
  return Object.fromEntries(Object.entries(record.retrievalMetrics ?? {}).filter(([name]) => (SPAN_METRICS as readonly string[]).includes(name)));
}

/**
 * Checks a record's stored span metrics against what it keeps (`retrieved[].spans`, `goldSpans`):
 * they are spanMetrics of the kept spans (whose agreement with Chroma's reference
 * test/scoring/chromaSpanGolden.test.ts checks), and precision's and IoU's denominators are Chroma's
 * — every retrieved range's length, plus the gold left unretrieved for IoU — summed from the record.
 */
export function expectScoredFromRecord(record: RunItemRecord): void {
  const stored = storedSpanMetrics(record);
  if (!record.goldSpans?.length) {
    expect(stored, record.key).toEqual({});
    return;
  }
  expect(record.retrieved.every((passage) => passage.spans?.length), record.key).toBe(true);
  const passages = record.retrieved.map((passage) => ({ spans: passage.spans!, chars: codePointLength(passage.text) }));
  expect(stored, record.key).toEqual(spanMetrics(passages, record.goldSpans));
  // |G|: gold characters counted once (two answers' occurrences may overlap).
  const gold = new Set(record.goldSpans.flatMap((span) => Array.from({ length: span.end - span.start }, (_, i) => `${span.doc}\u0000${span.start + i}`))).size;
  const retrieved = record.retrieved.flatMap((passage) => passage.spans!).reduce((sum, span) => sum + span.end - span.start, 0);
  const found = stored.charRecall! * gold;
  expect(stored.charPrecision! * retrieved, record.key).toBeCloseTo(found, 9);
  expect(stored.charIoU! * (retrieved + gold - found), record.key).toBeCloseTo(found, 9);
}
