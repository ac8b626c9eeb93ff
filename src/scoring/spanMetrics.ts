/** A character range [start, end) of a corpus document's text in code points (a chunk's `meta.spans` entry, a gold span). */
export interface TextSpan {
  doc: string;
  start: number;
  end: number;
}

/** One retrieved passage as the span metrics see it: where it is, and how long its text is (in the context). */
export interface SpannedPassage {
  /** Where the passage is in the corpus's documents; none for a passage from outside them (an external method's context). */
  spans: readonly TextSpan[];
  /** Code points the passage puts in the context (its text's). */
  chars: number;
}

/**
 * Retrieval against gold evidence measured in characters (code points) of the documents, so that it
 * means the same for any chunking — Chroma's chunking evaluation (`chunking_evaluation`,
 * `BaseEvaluation._scores_from_dataset_and_retrievals`) with characters in place of tokens. With G
 * the gold ranges merged (a gold character counts once) and r₁ … rₙ the retrieved passages' ranges:
 * - `charRecall` = |(∪rᵢ) ∩ G| / |G|;
 * - `charPrecision` = |(∪rᵢ) ∩ G| / Σ|rᵢ| — each passage's length counted, so text retrieved twice
 *   (overlapping chunks) counts twice, as Chroma counts it;
 * - `charIoU` = |(∪rᵢ) ∩ G| / (Σ|rᵢ| + |G \ ∪rᵢ|), Chroma's denominator: the retrieved lengths plus
 *   the gold left unretrieved;
 * - a passage without spans (from outside the corpus) adds its text's length to Σ|rᵢ| — it is
 *   retrieved text and holds no gold character — and is named in `spanlessPassages`;
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
  /** Retrieved passages with no spans (counted in precision's and IoU's denominators by their text); absent when none. */
  spanlessPassages?: number;
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
  const found = intersectionSize(unionOf(passages.flatMap((passage) => passage.spans)), goldUnion);
  const spanless = passages.filter((passage) => passage.spans.length === 0);
  const retrievedLength = passages.reduce((sum, passage) => sum + (passage.spans.length === 0 ? passage.chars : passage.spans.reduce((n, span) => n + Math.max(0, span.end - span.start), 0)), 0);
  const metrics: SpanMetrics = {
    charRecall: found / goldSize,
    charPrecision: retrievedLength === 0 ? 0 : found / retrievedLength,
    charIoU: found / (retrievedLength + goldSize - found),
    covered: found === goldSize ? 1 : 0,
    ...(spanless.length > 0 ? { spanlessPassages: spanless.length } : {}),
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
