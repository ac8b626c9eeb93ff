/** A character range [start, end) of a corpus document's text (a chunk's `meta.spans` entry, a gold span). */
export interface TextSpan {
  doc: string;
  start: number;
  end: number;
}

/** One retrieved passage as the span metrics see it: where it is, and how long its text is (in the context). */
export interface SpannedPassage {
  spans: readonly TextSpan[];
  /** Characters the passage puts in the context (its text's length). */
  chars: number;
}

/**
 * Retrieval against gold evidence measured in characters of the documents, so that it means the
 * same for any chunking (Chroma's chunking evaluation, with characters — UTF-16 code units of the
 * document text, one per Chinese character of the basic plane — in place of tokens):
 * - `charRecall` = |R ∩ G| / |G|, `charPrecision` = |R ∩ G| / |R|, `charIoU` = |R ∩ G| / |R ∪ G|, where R is
 *   the union of the retrieved passages' ranges and G the union of the gold ranges;
 * - `covered` = 1 when the passages cover every gold character, else 0; when they do, `coverK` is the
 *   smallest rank whose top passages cover it and `coverChars` the characters those top passages put in
 *   the context (overlapping text counted as often as the context holds it).
 */
export interface SpanMetrics {
  charRecall: number;
  charPrecision: number;
  charIoU: number;
  covered: 0 | 1;
  coverK?: number;
  coverChars?: number;
}

/** The span metrics' names, in the order tables show them. */
export const SPAN_METRICS = ['charRecall', 'charPrecision', 'charIoU', 'covered', 'coverK', 'coverChars'] as const satisfies readonly (keyof SpanMetrics)[];

/** Sorted, merged ranges per document. */
function unionOf(spans: Iterable<TextSpan>): Map<string, [number, number][]> {
  const byDoc = new Map<string, [number, number][]>();
  for (const span of spans) if (span.end > span.start) byDoc.set(span.doc, [...(byDoc.get(span.doc) ?? []), [span.start, span.end]]);
  for (const [doc, ranges] of byDoc) {
    ranges.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [start, end] of ranges) {
      const last = merged[merged.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    byDoc.set(doc, merged);
  }
  return byDoc;
}

const sizeOf = (union: Map<string, [number, number][]>) => [...union.values()].flat().reduce((sum, [start, end]) => sum + end - start, 0);

function intersectionSize(a: Map<string, [number, number][]>, b: Map<string, [number, number][]>): number {
  let total = 0;
  for (const [doc, ranges] of a) {
    const other = b.get(doc);
    if (!other) continue;
    let j = 0;
    for (const [start, end] of ranges) {
      while (j < other.length && other[j]![1] <= start) j++;
      for (let i = j; i < other.length && other[i]![0] < end; i++) total += Math.min(end, other[i]![1]) - Math.max(start, other[i]![0]);
    }
  }
  return total;
}

/** The span metrics of a ranked list of passages against gold spans; none without gold. */
export function spanMetrics(passages: readonly SpannedPassage[], gold: readonly TextSpan[]): SpanMetrics | undefined {
  const goldUnion = unionOf(gold);
  const goldSize = sizeOf(goldUnion);
  if (goldSize === 0) return undefined;
  const retrieved = unionOf(passages.flatMap((passage) => passage.spans));
  const retrievedSize = sizeOf(retrieved);
  const overlap = intersectionSize(retrieved, goldUnion);
  const metrics: SpanMetrics = {
    charRecall: overlap / goldSize,
    charPrecision: retrievedSize === 0 ? 0 : overlap / retrievedSize,
    charIoU: overlap / (retrievedSize + goldSize - overlap),
    covered: overlap === goldSize ? 1 : 0,
  };
  if (!metrics.covered) return metrics;
  // The smallest prefix of the ranking whose ranges hold every gold character.
  let chars = 0;
  for (let k = 1; k <= passages.length; k++) {
    chars += passages[k - 1]!.chars;
    if (intersectionSize(unionOf(passages.slice(0, k).flatMap((passage) => passage.spans)), goldUnion) === goldSize) return { ...metrics, coverK: k, coverChars: chars };
  }
  return metrics;
}
