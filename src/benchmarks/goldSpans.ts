import { z } from 'zod';
import type { CorpusDocument } from '../runFiles/corpusFiles.js';
import type { BenchmarkItem } from './types.js';
import { codePointLength } from '../text/codePoints.js';

/**
 * Gold evidence as a character range [start, end) of a corpus document's text (`documents.jsonl`) in
 * code points, as Python counts them (`text[start:end]`): a CJK Extension B character is one.
 */
export const GoldSpanSchema = z
  .strictObject({
    doc: z.string().min(1).describe("The document: a chunk span's `doc` (the source document's idKey, else its docId; a LongHisDoc page `<doc_id>-p<page>`)"),
    start: z.number().int().nonnegative(),
    end: z.number().int().positive(),
  })
  .refine((span) => span.end > span.start, { message: 'expected end > start', path: ['end'] });
export type GoldSpan = z.infer<typeof GoldSpanSchema>;

/** The code-point offset of a UTF-16 offset of a text. */
const pointAt = (text: string, utf16: number) => codePointLength(text.slice(0, utf16));

/** The code-point span of the UTF-16 range [start, end) of a document's text. */
const spanOf = (doc: string, text: string, start: number, end: number): GoldSpan => {
  const from = pointAt(text, start);
  return { doc, start: from, end: from + codePointLength(text.slice(start, end)) };
};

/** The fuzzy rule's normal form of a character: none for whitespace and punctuation/symbols, else its NFKC form. */
function normalChar(char: string): string {
  return /[\s\p{P}\p{S}]/u.test(char) ? '' : char.normalize('NFKC');
}

/** A text in the fuzzy rule's normal form, with the offset in the text each normal character comes from. */
function normalForm(text: string): { normal: string; from: number[]; to: number[] } {
  let normal = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const char = String.fromCodePoint(text.codePointAt(i)!);
    const form = normalChar(char);
    normal += form;
    // One entry per UTF-16 unit of the normal form, as indexOf counts them (an Extension B character has two).
    for (let unit = 0; unit < form.length; unit++) {
      from.push(i);
      to.push(i + char.length);
    }
    i += char.length;
  }
  return { normal, from, to };
}

/** What an item's gold evidence asks to be found in a corpus's documents. */
interface Wanted {
  key: string;
  item: BenchmarkItem;
  /** Evidence texts, each placed at its first occurrence (the item's own document first). */
  texts: string[];
  /** LongHisDoc: evidence pages as documents (`<doc_id>-p<page>`), and the answer strings whose occurrences there are finer gold. */
  pages: string[];
  answers: string[];
}

/** Answer strings precise enough to stand for their evidence: two characters or more, not yes/no or unanswerable. */
function answerStrings(item: BenchmarkItem): string[] {
  if (item.answerType === 'Bool' || item.answerType === 'None' || item.answer === undefined) return [];
  const answers = Array.isArray(item.answer) ? item.answer.map(String) : [item.answer];
  return [...new Set(answers.map((answer) => answer.trim()).filter((answer) => [...answer].length >= 2))];
}

function wantedOf(item: BenchmarkItem, key: string): Wanted | undefined {
  const texts = item.goldEvidence ?? [];
  const pages = item.evidencePages?.length && item.docId ? item.evidencePages.map((page) => `${item.docId}-p${page}`) : [];
  if (texts.length === 0 && pages.length === 0) return undefined;
  return { key, item, texts, pages, answers: answerStrings(item) };
}

/** Gold spans of a run's items in one corpus, and the evidence texts it could not place (by item key). */
export interface PlacedGold {
  spans: Map<string, GoldSpan[]>;
  unplaced: { key: string; origin?: string; text: string }[];
}

/**
 * Gold evidence as character spans (code points) of a corpus's documents, the same for any chunking of them:
 * - `goldSpans` (a benchmark's own `{doc, start, end}`) as they are;
 * - `goldEvidence` texts located in the documents: first exactly (its first occurrence, the item's
 *   own `docId` first), else by the fuzzy rule — both sides with whitespace, punctuation and symbols
 *   removed and NFKC-normalised, the span running from the first to the last matched character; a
 *   text found neither way is reported in `unplaced` (the item keeps whatever else placed);
 * - LongHisDoc evidence pages: each page's whole text (document `<doc_id>-p<page>`), or, where the
 *   answer (a string of two characters or more; not Bool or None answers) occurs on the page, each
 *   occurrence instead — the finer span.
 * Items without such gold get none. `documents` is read once, and once more for the fuzzy rule when an exact match is missing (a repeated document counts once).
 */
export async function placeGoldSpans(items: readonly { key: string; item: BenchmarkItem }[], documents: () => AsyncIterable<CorpusDocument>): Promise<PlacedGold> {
  const wanted = items.flatMap(({ key, item }) => wantedOf(item, key) ?? []);
  const spans = new Map<string, GoldSpan[]>(items.filter(({ item }) => item.goldSpans?.length).map(({ key, item }) => [key, [...item.goldSpans!]]));
  if (wanted.length === 0) return { spans, unplaced: [] };
  const add = (key: string, span: GoldSpan) => spans.set(key, [...(spans.get(key) ?? []), span]);
  const needles = wanted.flatMap((w) => w.texts.map((text, i) => ({ w, text, id: `${w.key}\u0000${i}` })));
  const pageDocs = new Set(wanted.flatMap((w) => w.pages));
  const texts = new Map<string, string>();
  const exact = await placeEach(
    needles,
    documents(),
    (needle, document) => {
      const at = document.text.indexOf(needle.text);
      return at >= 0 ? spanOf(document.doc, document.text, at, at + needle.text.length) : undefined;
    },
    (document) => pageDocs.has(document.doc) && texts.set(document.doc, document.text),
  );
  const pending = needles.filter((needle) => !exact.has(needle.id));
  const fuzzy = pending.length > 0 ? await placeFuzzily(pending, documents()) : new Map<string, GoldSpan>();
  const unplaced: PlacedGold['unplaced'] = [];
  for (const { w, text, id } of needles) {
    const span = exact.get(id) ?? fuzzy.get(id);
    if (span) add(w.key, span);
    else unplaced.push({ key: w.key, ...(w.item.origin ? { origin: w.item.origin } : {}), text });
  }
  for (const w of wanted) {
    for (const page of w.pages) {
      const text = texts.get(page);
      if (text === undefined || text.length === 0) continue;
      const occurrences = w.answers.flatMap((answer) => occurrencesOf(text, answer).map((start) => spanOf(page, text, start, start + answer.length)));
      for (const span of occurrences.length > 0 ? occurrences : [spanOf(page, text, 0, text.length)]) add(w.key, span);
    }
  }
  return { spans, unplaced };
}

function occurrencesOf(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) out.push(at);
  return out;
}

type Needle = { w: Wanted; text: string; id: string };

/** Each needle's first span in the documents (a repeated document read once); the item's own document wins over others. */
async function placeEach<N extends Needle>(
  needles: N[],
  documents: AsyncIterable<CorpusDocument>,
  find: (needle: N, document: CorpusDocument) => GoldSpan | undefined,
  visit?: (document: CorpusDocument) => void,
): Promise<Map<string, GoldSpan>> {
  const found = new Map<string, { span: GoldSpan; own: boolean }>();
  const seen = new Set<string>();
  for await (const document of documents) {
    if (seen.has(document.doc)) continue;
    seen.add(document.doc);
    visit?.(document);
    for (const needle of needles) {
      const own = needle.w.item.docId !== undefined && document.docId === needle.w.item.docId;
      const earlier = found.get(needle.id);
      if (earlier && (earlier.own || !own)) continue;
      const span = find(needle, document);
      if (span) found.set(needle.id, { span, own });
    }
  }
  return new Map([...found].map(([id, { span }]) => [id, span]));
}

/** The fuzzy rule: a second read of the documents, matching normal forms. */
function placeFuzzily(pending: Needle[], documents: AsyncIterable<CorpusDocument>): Promise<Map<string, GoldSpan>> {
  const needles = pending.map((p) => ({ ...p, normal: normalForm(p.text).normal })).filter((p) => p.normal.length > 0);
  const forms = new WeakMap<CorpusDocument, ReturnType<typeof normalForm>>();
  return placeEach(needles, documents, (needle, document) => {
    const form = forms.get(document) ?? normalForm(document.text);
    forms.set(document, form);
    const at = form.normal.indexOf(needle.normal);
    return at >= 0 ? spanOf(document.doc, document.text, form.from[at]!, form.to[at + needle.normal.length - 1]!) : undefined;
  });
}
