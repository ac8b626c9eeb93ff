import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DataFileError } from '../../errors.js';
import type { PageImageRef } from '../../runFiles/pageImage.js';

/**
 * LongHisDoc's page scans, `<imageDir>/<doc_id>/page_<n>.jpg` (n one-based), checked against the OCR's
 * page counts from headers and tails alone, before any model call: a broken folder is refused (or
 * counted) up front.
 */

export type PageImageProblemKind = 'missing-folder' | 'missing-page' | 'extra-pages' | 'truncated' | 'unreadable';

export interface PageImageProblem {
  kind: PageImageProblemKind;
  docId: string;
  /** The page concerned (absent for folder-level problems). */
  page?: number;
  /** The file or folder concerned, absolute. */
  file?: string;
  message: string;
}

export interface PageImageDocument {
  docId: string;
  /** Pages the document has (its OCR's page count): page images 1..pages are expected, no more. */
  pages: number;
  /**
   * False when `pages` is only the highest page a caller needs (no OCR at hand to count them): page
   * images beyond it are then not a mismatch. Default true.
   */
  exact?: boolean;
}

export interface OpenPageImageCatalogOptions {
  imageDir: string;
  documents: readonly PageImageDocument[];
  /** `error`: any problem throws a DataFileError naming them; `warn`: problems are kept in `problems`. */
  onProblem: 'error' | 'warn';
}

export interface PageImageCatalog {
  /** Absolute image folder. */
  readonly imageDir: string;
  /** The page's image, or undefined where the page has a problem (see `problems`) or is not in the catalog. */
  image(docId: string, page: number): PageImageRef | undefined;
  /** The document's usable page images in page order. */
  pages(docId: string): PageImageRef[];
  readonly problems: readonly PageImageProblem[];
  /** Documents checked and usable page images found. */
  readonly documentCount: number;
  readonly imageCount: number;
}

/** What a benchmark or corpus reports about its images (run manifests, `describe()`). */
export interface PageImageSummary {
  documents: number;
  pages: number;
  problems: Partial<Record<PageImageProblemKind, number>>;
  examples: string[];
}

const EXAMPLES = 3;
/** A header large enough to hold APP0/JFIF, quantisation tables and the SOF of a typical scan. */
const HEAD_BYTES = 4096;
/** Bytes looked at after the EOI marker: some encoders pad a file with a few zero or 0xFF bytes. */
const TAIL_BYTES = 16;

/** `<doc_id>/page_<n>.jpg`, the path of a page image inside its folder. */
export function pageImagePath(docId: string, page: number): string {
  return `${docId}/page_${page}.jpg`;
}

interface DocumentScan {
  refs: (PageImageRef | undefined)[];
  problems: PageImageProblem[];
}

// One scan per (folder, document, page count): the loader, the corpus builder and the strategies
// of one process ask for the same pages and share it.
const documentScans = new Map<string, Promise<DocumentScan>>();

/** Forgets every scan (tests that change a folder after opening it, long-lived processes). */
export function forgetPageImageScans(): void {
  documentScans.clear();
}

export async function openPageImageCatalog(options: OpenPageImageCatalogOptions): Promise<PageImageCatalog> {
  const imageDir = resolve(options.imageDir);
  const scans = await Promise.all(options.documents.map(async (doc) => [doc.docId, await scanDocumentOnce(imageDir, doc)] as const));
  const byDoc = new Map(scans);
  const problems = [...byDoc.values()].flatMap((scan) => scan.problems);
  if (options.onProblem === 'error' && problems.length > 0) throw pageImageProblemsError(imageDir, problems);
  const imageCount = [...byDoc.values()].reduce((n, scan) => n + scan.refs.filter(Boolean).length, 0);
  return {
    imageDir,
    image: (docId, page) => byDoc.get(docId)?.refs[page - 1],
    pages: (docId) => (byDoc.get(docId)?.refs ?? []).filter((ref): ref is PageImageRef => ref !== undefined),
    problems,
    documentCount: byDoc.size,
    imageCount,
  };
}

/** One line counting problems by kind and naming the first few, with document and page. */
export function describePageImageProblems(imageDir: string, problems: readonly PageImageProblem[]): string {
  const byKind = Object.entries(countProblems(problems)).map(([kind, n]) => `${n} ${kind}`).join(', ');
  const named = problems.slice(0, EXAMPLES).map((p) => p.message).join('; ');
  const more = problems.length > EXAMPLES ? `; … ${problems.length - EXAMPLES} more` : '';
  return `${imageDir}: ${problems.length} page image problem${problems.length === 1 ? '' : 's'} (${byKind}): ${named}${more}`;
}

/** The refusal: the problems described, and how to keep going instead. */
export function pageImageProblemsError(imageDir: string, problems: readonly PageImageProblem[]): DataFileError {
  return new DataFileError(`${describePageImageProblems(imageDir, problems)} (onImageProblem: warn keeps going and counts them)`);
}

export function countProblems(problems: readonly PageImageProblem[]): Partial<Record<PageImageProblemKind, number>> {
  const counts: Partial<Record<PageImageProblemKind, number>> = {};
  for (const problem of problems) counts[problem.kind] = (counts[problem.kind] ?? 0) + 1;
  return counts;
}

export function summarisePageImages(catalog: PageImageCatalog, extraProblems: readonly PageImageProblem[] = []): PageImageSummary {
  const problems = [...catalog.problems, ...extraProblems];
  return {
    documents: catalog.documentCount,
    pages: catalog.imageCount,
    problems: countProblems(problems),
    examples: problems.slice(0, EXAMPLES).map((p) => p.message),
  };
}

function scanDocumentOnce(imageDir: string, doc: PageImageDocument): Promise<DocumentScan> {
  if (!/^[^/\\]+$/.test(doc.docId) || doc.docId === '.' || doc.docId === '..') {
    throw new DataFileError(`${imageDir}: document id "${doc.docId}" cannot name an image folder (it must be one path segment)`);
  }
  if (!Number.isInteger(doc.pages) || doc.pages < 0) throw new DataFileError(`${imageDir}: document ${doc.docId}: page count ${doc.pages} is not a whole number`);
  const key = `${imageDir}\0${doc.docId}\0${doc.pages}\0${doc.exact ?? true}`;
  let scan = documentScans.get(key);
  if (!scan) {
    scan = scanDocument(imageDir, doc);
    documentScans.set(key, scan);
  }
  return scan;
}

async function scanDocument(imageDir: string, { docId, pages, exact = true }: PageImageDocument): Promise<DocumentScan> {
  const folder = join(imageDir, docId);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return {
      refs: new Array(pages).fill(undefined),
      problems: [{ kind: 'missing-folder', docId, file: folder, message: `no image folder for document ${docId} (${folder}; ${pages} pages in the OCR)` }],
    };
  }
  const present = new Set<number>();
  for (const name of names) {
    // page_<n>.jpg without leading zeros: the name the convention (and pageImagePath) gives.
    const match = /^page_(0|[1-9]\d*)\.jpg$/.exec(name);
    if (match) present.add(Number(match[1]));
  }
  const problems: PageImageProblem[] = [];
  // Fewer images than pages shows as missing pages below; more is the folder of another edition or volume.
  const beyond = [...present].filter((n) => n < 1 || (exact && n > pages)).sort((a, b) => a - b);
  if (beyond.length > 0) {
    const listed = `${beyond.slice(0, 5).map((n) => `page_${n}.jpg`).join(', ')}${beyond.length > 5 ? ', …' : ''}`;
    problems.push({
      kind: 'extra-pages',
      docId,
      file: folder,
      message: `image folder of document ${docId} does not match the OCR: ${present.size} page images for ${pages} OCR pages (beyond the OCR: ${listed}; ${folder})`,
    });
  }
  const refs: (PageImageRef | undefined)[] = new Array(pages).fill(undefined);
  for (let page = 1; page <= pages; page++) {
    const path = pageImagePath(docId, page);
    const file = join(imageDir, docId, `page_${page}.jpg`);
    if (!present.has(page)) {
      problems.push({ kind: 'missing-page', docId, page, file, message: `missing page image ${docId} page ${page} (${file})` });
      continue;
    }
    const checked = inspectJpeg(file);
    if ('problem' in checked) {
      const what = checked.problem === 'truncated' ? 'truncated JPEG' : 'unreadable JPEG';
      problems.push({ kind: checked.problem, docId, page, file, message: `${what} ${docId} page ${page} (${file}: ${checked.reason})` });
      continue;
    }
    refs[page - 1] = { imageDir, path, docId, page, width: checked.width, height: checked.height, bytes: checked.bytes };
  }
  return { refs, problems };
}

export type JpegCheck = { width: number; height: number; bytes: number } | { problem: 'truncated' | 'unreadable'; reason: string };

/**
 * Size of a JPEG from its SOF segment, and whether it ends with EOI, reading only the headers and the
 * last bytes. Synchronous on purpose: the promise API's round trips made a 8,585-file check six times
 * slower, and callers await between documents.
 */
export function inspectJpeg(file: string): JpegCheck {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    return { problem: 'unreadable', reason: `cannot open (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  try {
    const { size } = fstatSync(fd);
    if (size === 0) return { problem: 'unreadable', reason: 'empty file' };
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    readSync(fd, head, 0, head.length, 0);
    if (head.length < 4 || head[0] !== 0xff || head[1] !== 0xd8) return { problem: 'unreadable', reason: 'not a JPEG (no SOI marker at the start)' };
    const readAt = (position: number, length: number): Buffer | undefined => {
      if (position + length > size) return undefined;
      if (position + length <= head.length) return head.subarray(position, position + length);
      const out = Buffer.alloc(length);
      readSync(fd, out, 0, length, position);
      return out;
    };
    const frame = findFrame(readAt);
    const tail = Buffer.alloc(Math.min(TAIL_BYTES, size));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    if (!endsWithEoi(tail)) return { problem: 'truncated', reason: `no EOI marker at the end (${size} bytes): the file was cut short` };
    if ('problem' in frame) return frame;
    return { ...frame, bytes: size };
  } catch (error) {
    return { problem: 'unreadable', reason: (error as Error).message };
  } finally {
    closeSync(fd);
  }
}

/** SOFn markers (baseline, progressive, lossless ...): C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
const isFrameMarker = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function findFrame(readAt: (position: number, length: number) => Buffer | undefined): { width: number; height: number } | { problem: 'truncated' | 'unreadable'; reason: string } {
  let position = 2;
  for (;;) {
    const marker = readAt(position, 2);
    if (!marker) return { problem: 'truncated', reason: `the file ends inside its headers (at byte ${position}), before the frame header` };
    if (marker[0] !== 0xff) return { problem: 'unreadable', reason: `no segment marker at byte ${position}` };
    const code = marker[1]!;
    // Fill bytes (0xFF repeated) may precede a marker; standalone markers carry no length.
    if (code === 0xff) {
      position += 1;
      continue;
    }
    if (code === 0x01 || (code >= 0xd0 && code <= 0xd7)) {
      position += 2;
      continue;
    }
    if (code === 0xda || code === 0xd9) return { problem: 'unreadable', reason: 'no frame header (SOF) before the image data: width and height unknown' };
    const lengthBytes = readAt(position + 2, 2);
    if (!lengthBytes) return { problem: 'truncated', reason: `the file ends inside its headers (at byte ${position + 2})` };
    const length = lengthBytes.readUInt16BE(0);
    if (length < 2) return { problem: 'unreadable', reason: `segment at byte ${position} has an impossible length ${length}` };
    if (isFrameMarker(code)) {
      const frame = readAt(position + 4, 5);
      if (!frame || length < 7) return { problem: 'truncated', reason: 'the frame header (SOF) is cut short' };
      const height = frame.readUInt16BE(1);
      const width = frame.readUInt16BE(3);
      if (width === 0 || height === 0) return { problem: 'unreadable', reason: `the frame header gives a ${width}×${height} image` };
      return { width, height };
    }
    position += 2 + length;
  }
}

function endsWithEoi(tail: Buffer): boolean {
  let end = tail.length;
  while (end > 2 && (tail[end - 1] === 0x00 || tail[end - 1] === 0x0a || tail[end - 1] === 0x0d)) end--;
  return end >= 2 && tail[end - 2] === 0xff && tail[end - 1] === 0xd9;
}
