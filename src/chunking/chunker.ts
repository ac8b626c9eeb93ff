import type { Chunk, DocumentSection, SectionedDocument, SizeMeasure } from './types.js';
import { splitSentences, type Sentence } from './sentences.js';

export interface ChunkerSettings {
  /** Corpus name: the first part of every chunk id. */
  corpus: string;
  maxSize: number;
  overlap: number;
  measure: SizeMeasure;
  headingPrefix?: boolean;
}

/** Code points: the `chars` unit, so that a surrogate pair counts (and is cut) as one character. */
export const countCodePoints: SizeMeasure = (text) => {
  // UTF-16 units less one per surrogate pair (a lone surrogate counts one, as the string iterator
  // has it): a charCodeAt loop, several times faster than iterating, and chunking calls it per sentence.
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
};

/**
 * Cuts a document into chunks of at most `maxSize` (in the measure's unit): sentences are packed
 * in order, a paragraph break becomes a newline, and chunks never span two sections. A sentence
 * longer than `maxSize` is cut at code-point boundaries. With `overlap`, the next chunk starts
 * with the trailing sentences of the previous one that fit in `overlap`.
 * Ids are deterministic: `<corpus>:<docId>:<n>` (`idKey` in place of docId when set), n counting from 0 within the document.
 */
export function chunkDocument(doc: SectionedDocument, settings: ChunkerSettings): Chunk[] {
  const sections: DocumentSection[] = doc.sections ?? [{ headings: [], text: doc.text }];
  const chunks: Chunk[] = [];
  for (const section of sections) {
    const heading = section.headings.join(' > ');
    const prefix = settings.headingPrefix && heading ? `${heading}\n` : '';
    const budget = settings.maxSize - (prefix ? settings.measure(prefix) : 0);
    if (budget <= 0) throw new Error(`heading "${heading}" is longer than chunking.maxSize`);
    for (const text of packSentences(splitSentences(section.text), { ...settings, maxSize: budget, overlap: Math.min(settings.overlap, budget - 1) })) {
      const n = chunks.length;
      chunks.push({
        id: `${settings.corpus}:${doc.idKey ?? doc.docId}:${n}`,
        docId: doc.docId,
        title: doc.title,
        text: prefix + text,
        meta: heading ? { ...doc.meta, section: heading } : { ...doc.meta },
      });
    }
  }
  return chunks;
}

interface Piece {
  text: string;
  size: number;
  paragraphStart: boolean;
}

function packSentences(sentences: Sentence[], settings: ChunkerSettings): string[] {
  const pieces: Piece[] = [];
  for (const sentence of sentences) {
    const size = settings.measure(sentence.text);
    if (size <= settings.maxSize) {
      pieces.push({ ...sentence, size });
      continue;
    }
    cutLongSentence(sentence.text, settings).forEach((text, i) =>
      pieces.push({ text, size: settings.measure(text), paragraphStart: i === 0 && sentence.paragraphStart }),
    );
  }

  const out: string[] = [];
  let current: Piece[] = [];
  let currentSize = 0;
  let freshInCurrent = 0; // pieces not carried over as overlap
  const flush = () => {
    if (freshInCurrent === 0) return;
    out.push(current.map((p, i) => (i > 0 && p.paragraphStart ? '\n' : '') + p.text.trim()).join(''));
    // Carry the trailing pieces that fit within the overlap into the next chunk.
    const carried: Piece[] = [];
    let carriedSize = 0;
    for (let i = current.length - 1; i >= 0 && settings.overlap > 0; i--) {
      const piece = current[i]!;
      if (carriedSize + piece.size > settings.overlap) break;
      carried.unshift(piece);
      carriedSize += piece.size;
    }
    current = carried;
    currentSize = carriedSize;
    freshInCurrent = 0;
  };
  for (const piece of pieces) {
    if (currentSize + piece.size > settings.maxSize) flush();
    // The carried overlap may still leave no room: drop it rather than exceed maxSize.
    while (current.length > 0 && currentSize + piece.size > settings.maxSize) {
      currentSize -= current.shift()!.size;
    }
    current.push(piece);
    currentSize += piece.size;
    freshInCurrent++;
  }
  flush();
  return out.filter((text) => text.length > 0);
}

/** Cuts an over-long sentence into pieces of at most maxSize, never inside a surrogate pair. */
function cutLongSentence(text: string, settings: ChunkerSettings): string[] {
  const codePoints = Array.from(text);
  const pieces: string[] = [];
  let start = 0;
  while (start < codePoints.length) {
    // Largest end with measure(piece) <= maxSize (binary search: tokens are not additive per char).
    let lo = start + 1;
    let hi = Math.min(codePoints.length, start + settings.maxSize * 8);
    if (settings.measure(codePoints.slice(start, hi).join('')) <= settings.maxSize) lo = hi;
    else {
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (settings.measure(codePoints.slice(start, mid).join('')) <= settings.maxSize) lo = mid;
        else hi = mid - 1;
      }
    }
    pieces.push(codePoints.slice(start, lo).join(''));
    start = lo;
  }
  return pieces;
}
