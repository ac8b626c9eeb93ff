import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { placeGoldSpans } from '../../src/benchmarks/goldSpans.js';
import { chunkDocument, countCodePoints, type ChunkSpan } from '../../src/chunking/chunker.js';
import { spanMetrics, type TextSpan } from '../../src/scoring/spanMetrics.js';

// Golden vectors from Chroma's chunking_evaluation (`_scores_from_dataset_and_retrievals`), made by
// scripts/golden/chroma_span_metrics.py: the file names the reference, the commit read and how the
// values were produced. Regenerate: python3 scripts/golden/chroma_span_metrics.py > test/golden/chroma-span-metrics.json

interface Expected {
  charRecall: number;
  charPrecision: number;
  charIoU: number;
}
interface GoldenCase {
  name: string;
  generalised: boolean;
  passages: { spans: TextSpan[] }[];
  gold: TextSpan[];
  expected: Expected;
}
interface Vectors {
  reference: { repository: string; file: string; function: string; commit: string };
  produced: string;
  cases: GoldenCase[];
  fixedWindows: GoldenCase & { document: { doc: string; length: number; maxSize: number; overlap: number }; windows: TextSpan[] };
  extensionB: { text: string; sentence: string; gold: TextSpan[]; utf16Start: number };
}

const vectors = JSON.parse(readFileSync(new URL('../golden/chroma-span-metrics.json', import.meta.url), 'utf8')) as Vectors;
const lengthOf = (spans: readonly TextSpan[]) => spans.reduce((sum, span) => sum + span.end - span.start, 0);

describe("span metrics against Chroma's reference (golden vectors)", () => {
  it('names the reference and how the vectors were made', () => {
    expect(vectors.reference.function).toBe('BaseEvaluation._scores_from_dataset_and_retrievals');
    expect(vectors.reference.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(vectors.cases.length).toBeGreaterThanOrEqual(50);
    // The cases reach every regime: gold missed in part, wholly, and found whole.
    expect(vectors.cases.some((c) => c.expected.charRecall === 0)).toBe(true);
    expect(vectors.cases.some((c) => c.expected.charRecall > 0 && c.expected.charRecall < 1)).toBe(true);
    expect(vectors.cases.some((c) => c.expected.charRecall === 1)).toBe(true);
  });

  it('gives recall, precision and IoU equal to the reference on every case (overlapping and repeated passages, several documents)', () => {
    for (const c of vectors.cases) {
      const metrics = spanMetrics(c.passages.map((p) => ({ spans: p.spans, chars: lengthOf(p.spans) })), c.gold)!;
      expect(metrics.charRecall, c.name).toBeCloseTo(c.expected.charRecall, 12);
      expect(metrics.charPrecision, c.name).toBeCloseTo(c.expected.charPrecision, 12);
      expect(metrics.charIoU, c.name).toBeCloseTo(c.expected.charIoU, 12);
    }
  });

  it("on fixed 16-character windows overlapping by 8, the chunker's spans give the reference's precision and IoU", () => {
    const { document, windows, passages, gold, expected } = vectors.fixedWindows;
    const text = Array.from({ length: document.length }, (_, i) => '甲乙丙丁戊己庚辛壬癸'[i % 10]).join('');
    const chunks = chunkDocument({ docId: document.doc, title: '', meta: {}, text }, { corpus: 'c', maxSize: document.maxSize, overlap: document.overlap, measure: countCodePoints, method: 'fixed' });
    expect(chunks.map((chunk) => (chunk.meta.spans as ChunkSpan[])[0])).toEqual(windows);
    const retrieved = passages.map((p) => chunks.find((chunk) => JSON.stringify(chunk.meta.spans) === JSON.stringify(p.spans))!);
    const metrics = spanMetrics(retrieved.map((chunk) => ({ spans: chunk.meta.spans as ChunkSpan[], chars: countCodePoints(chunk.text) })), gold)!;
    expect(metrics.charPrecision).toBeCloseTo(expected.charPrecision, 12);
    expect(metrics.charIoU).toBeCloseTo(expected.charIoU, 12);
    // Hand-worked: windows [8,24) [16,32) [24,40) [48,64) hold all 26 gold characters; 64 characters retrieved, 48 distinct.
    expect(metrics.charPrecision).toBe(26 / 64);
  });

  it('places gold in code points as Python counts them, so the chunk that holds a sentence after Extension B characters recalls it whole', async () => {
    const { text, sentence, gold, utf16Start } = vectors.extensionB;
    expect(gold[0]!.start).not.toBe(utf16Start); // the case would catch UTF-16 offsets
    const placed = await placeGoldSpans([{ key: 'q', item: { id: 'q', benchmark: 'b', kind: 'reference', question: 'q', category: 'c', meta: {}, goldEvidence: [sentence] } }], async function* () {
      yield { doc: 'b', docId: 'b', text };
    });
    expect(placed.spans.get('q')).toEqual(gold);
    for (const maxSize of [8, 12, 30]) {
      const chunks = chunkDocument({ docId: 'b', title: '', meta: {}, text }, { corpus: 'c', maxSize, overlap: 0, measure: countCodePoints });
      const holder = chunks.find((chunk) => chunk.text.includes(sentence))!;
      const metrics = spanMetrics([{ spans: holder.meta.spans as ChunkSpan[], chars: countCodePoints(holder.text) }], gold)!;
      expect(metrics.charRecall, `maxSize ${maxSize}`).toBe(1);
    }
  });
});
