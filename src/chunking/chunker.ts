import type { ChunkingOptions, DocumentSection, SectionedDocument, SizeMeasure } from './types.js';
import type { Chunk } from '../runFiles/corpusFiles.js';
import { splitSentences, type Sentence } from './sentences.js';
import { codePointLength, codePointOffsets } from '../text/codePoints.js';

/** The chunking section's sizes and method, the corpus name (first part of every chunk id) and the measure. */
export type ChunkerSettings = Pick<ChunkingOptions, 'maxSize' | 'overlap'> &
  Partial<Pick<ChunkingOptions, 'headingPrefix' | 'method'>> & { corpus: string; measure: SizeMeasure };

/** Code points: the `chars` unit, so that a surrogate pair counts (and is cut) as one character. */
export const countCodePoints: SizeMeasure = codePointLength;

/**
 * What chunk spans (`meta.spans`) mean, recorded in a corpus's build settings so that a corpus whose
 * spans meant something else reads as stale: 2 = code-point offsets, each chunk's range running on
 * over the whitespace after it (see ChunkSpan). Corpora without it (1) had UTF-16 offsets trimmed
 * to non-whitespace, which left the separators between chunks in no chunk.
 */
export const CHUNK_SPAN_FORMAT = 2;

/**
 * Cuts a document into chunks of at most `maxSize` (the measure's unit), never across sections:
 * sentences packed in order (one longer than maxSize cut at code points), the next chunk starting with
 * the previous one's trailing sentences that fit in `overlap`. Ids: `<corpus>:<idKey ?? docId>:<n>`;
 * `meta.spans` says where each chunk is in its document's text.
 */
export function chunkDocument(doc: SectionedDocument, settings: ChunkerSettings): Chunk[] {
  const sections: DocumentSection[] = doc.sections ?? [{ headings: [], text: doc.text }];
  const chunks: Chunk[] = [];
  const located: LocatedChunk[] = [];
  let sectionSearch = 0;
  for (const section of sections) {
    const heading = section.headings.join(' > ');
    const prefix = settings.headingPrefix && heading ? `${heading}\n` : '';
    const budget = settings.maxSize - (prefix ? settings.measure(prefix) : 0);
    if (budget <= 0) throw new Error(`heading "${heading}" is longer than chunking.maxSize`);
    // Builders join their sections into the document's text: a section's ranges are offset by where it is there.
    const sectionAt = doc.text.indexOf(section.text, sectionSearch);
    if (sectionAt >= 0) sectionSearch = sectionAt + section.text.length;
    const sized = { ...settings, maxSize: budget, overlap: Math.min(settings.overlap, budget - 1) };
    for (const packed of settings.method === 'fixed' ? fixedWindows(section.text, sized) : packSentences(splitSentences(section.text), sized)) {
      const chunk: Chunk = {
        id: `${settings.corpus}:${doc.idKey ?? doc.docId}:${chunks.length}`,
        docId: doc.docId,
        title: doc.title,
        text: prefix + packed.text,
        meta: { ...doc.meta, ...(heading ? { section: heading } : {}) },
      };
      chunks.push(chunk);
      if (sectionAt >= 0) located.push({ chunk, start: sectionAt + packed.start, end: sectionAt + packed.end });
    }
  }
  placeChunks(doc, located);
  return chunks;
}

/** A chunk and the range [start, end) of its document's text (UTF-16 offsets) its text comes from, trimmed to non-whitespace. */
interface LocatedChunk {
  chunk: Chunk;
  start: number;
  end: number;
}

const isBlank = (text: string) => text.trim().length === 0;

/**
 * Sets each located chunk's `meta.spans`: its trimmed range run on over the whitespace that follows
 * it up to the next chunk (or the document's end), the first also back over the whitespace before it,
 * so that the chunks of a document cover all of it and no separator is in no chunk. Ranges in code points.
 */
function placeChunks(doc: SectionedDocument, located: LocatedChunk[]): void {
  const points = codePointOffsets(doc.text);
  located.forEach(({ chunk, start, end }, i) => {
    const next = located[i + 1]?.start ?? doc.text.length;
    const to = next > end && isBlank(doc.text.slice(end, next)) ? next : end;
    const from = i === 0 && isBlank(doc.text.slice(0, start)) ? 0 : start;
    const spans = chunkSpans(doc, from, to, points);
    if (spans.length) chunk.meta.spans = spans;
  });
}

/**
 * Where a chunk is: a character range [start, end) of a document's text in code points (Python's
 * `text[start:end]`; a CJK Extension B character counts one). The range runs from the chunk's first
 * non-space character through the whitespace after its last, up to where the next chunk of the
 * document starts (the last chunk: to the document's end; the first starts at the document's start
 * when only whitespace is before it). So the chunks of a document cover every character of it — a
 * newline between two chunks belongs to the one before — and with every chunk retrieved, no gold
 * character is missed, whatever the chunk size. The chunk's text (less its heading prefix) has the
 * range's non-whitespace characters in the same order: only whitespace differs (blank lines and the
 * spaces around sentences dropped, a line break kept as one newline).
 */
export interface ChunkSpan {
  /** The document: `idKey` of its source document, else its docId (a LongHisDoc page: `<doc_id>-p<page>`). */
  doc: string;
  start: number;
  end: number;
}

/**
 * The range [start, end) of a document's text (UTF-16 offsets) as code-point spans of the documents
 * it is made of: itself (`idKey ?? docId`), or the parts it joins (a LongHisDoc page window: one span
 * per page it covers; the separators between pages are in no page).
 */
export function chunkSpans(doc: SectionedDocument, start: number, end: number, points = codePointOffsets(doc.text)): ChunkSpan[] {
  if (!doc.parts) return [{ doc: doc.idKey ?? doc.docId, start: points(start), end: points(end) }];
  return doc.parts.flatMap((part) => {
    const from = Math.max(start, part.start);
    const to = Math.min(end, part.end);
    return to > from ? [{ doc: part.doc, start: points(from) - points(part.start), end: points(to) - points(part.start) }] : [];
  });
}

interface Piece {
  text: string;
  size: number;
  paragraphStart: boolean;
  /** Offset of `text` in the section. */
  at: number;
}

/** A chunk's text and the range [start, end) of the section it comes from (its first piece's first non-space character to its last piece's last). */
interface Packed {
  text: string;
  start: number;
  end: number;
}

function packSentences(sentences: Sentence[], settings: ChunkerSettings): Packed[] {
  const pieces: Piece[] = [];
  for (const sentence of sentences) {
    const size = settings.measure(sentence.text);
    if (size <= settings.maxSize) {
      pieces.push({ ...sentence, size });
      continue;
    }
    let at = sentence.at;
    cutLongSentence(sentence.text, settings).forEach((text, i) => {
      pieces.push({ text, size: settings.measure(text), paragraphStart: i === 0 && sentence.paragraphStart, at });
      at += text.length;
    });
  }

  const out: Packed[] = [];
  let current: Piece[] = [];
  let currentSize = 0;
  let freshInCurrent = 0; // pieces not carried over as overlap
  const flush = () => {
    if (freshInCurrent === 0) return;
    const kept = current.filter((p) => p.text.trim().length > 0);
    const text = current.map((p, i) => (i > 0 && p.paragraphStart ? '\n' : '') + p.text.trim()).join('');
    if (text.length > 0) {
      const first = kept[0]!;
      const last = kept[kept.length - 1]!;
      out.push({ text, start: first.at + first.text.length - first.text.trimStart().length, end: last.at + last.text.trimEnd().length });
    }
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
  return out;
}
/**
 * The `fixed` method: windows of at most maxSize (the measure's unit) over the text's code points,
 * each starting where at most `overlap` of the previous one is left (at a non-space character); a
 * window's text is its range less trailing whitespace.
 */
function fixedWindows(text: string, settings: ChunkerSettings): Packed[] {
  const points = Array.from(text);
  const offsets = [0];
  for (const point of points) offsets.push(offsets[offsets.length - 1]! + point.length);
  const measure = (from: number, to: number) => settings.measure(text.slice(offsets[from], offsets[to]));
  const out: Packed[] = [];
  for (let start = 0; start < points.length; ) {
    // A window starts at a non-space character (whitespace there would only be trimmed away).
    while (start < points.length && !points[start]!.trim()) start++;
    if (start === points.length) break;
    const end = largestFit(start + 1, points.length, (mid) => measure(start, mid) <= settings.maxSize);
    const window = text.slice(offsets[start], offsets[end]).trimEnd();
    out.push({ text: window, start: offsets[start]!, end: offsets[start]! + window.length });
    if (end === points.length) break;
    // The next window starts at the earliest point after `start` whose tail to `end` fits in the overlap.
    let next = end;
    while (next - 1 > start && measure(next - 1, end) <= settings.overlap) next--;
    start = next;
  }
  return out;
}

/** Cuts an over-long sentence into pieces of at most maxSize, never inside a surrogate pair. */
function cutLongSentence(text: string, settings: ChunkerSettings): string[] {
  const codePoints = Array.from(text);
  const pieces: string[] = [];
  let start = 0;
  while (start < codePoints.length) {
    // Binary search, not a running sum: tokens are not additive per character.
    const hi = Math.min(codePoints.length, start + settings.maxSize * 8);
    const fits = (end: number) => settings.measure(codePoints.slice(start, end).join('')) <= settings.maxSize;
    const end = fits(hi) ? hi : largestFit(start + 1, hi, fits);
    pieces.push(codePoints.slice(start, end).join(''));
    start = end;
  }
  return pieces;
}

/** The largest end in [lo, hi] that `fits` (at least `lo`); what fits grows with the end. */
function largestFit(lo: number, hi: number, fits: (end: number) => boolean): number {
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
