// Guards the bundled demo data (corpora/sources, experiments/data) so it cannot silently rot:
// every file must parse and keep the shape the loaders and the offline demo rely on.
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countCjkChars } from '../../src/text/cjk.js';
import { toSimplified } from '../../src/text/simplify.js';

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

// ---------------------------------------------------------------- zhwiki XML export

interface DumpPage {
  title: string;
  ns: string;
  id: string;
  redirect?: string;
  revision: Record<string, string>;
  textBytes?: string;
  text: string;
}
interface Dump {
  rootAttributes: Record<string, string>;
  siteinfo: Record<string, string>;
  namespaces: Map<string, string>;
  pages: DumpPage[];
}

/** Reads the whole (small) export with saxes, which throws on any well-formedness error. */
function parseDump(xml: string): Dump {
  const parser = new SaxesParser({ xmlns: true });
  const dump: Dump = { rootAttributes: {}, siteinfo: {}, namespaces: new Map(), pages: [] };
  const stack: string[] = [];
  let chars = '';
  let page: DumpPage | undefined;
  let namespaceKey = '';
  parser.on('opentag', (tag) => {
    stack.push(tag.local);
    chars = '';
    const attr = (name: string) => {
      const a = tag.attributes[name];
      return typeof a === 'string' ? a : a?.value;
    };
    if (stack.length === 1) {
      for (const [name, a] of Object.entries(tag.attributes)) dump.rootAttributes[name] = typeof a === 'string' ? a : a.value;
    }
    if (tag.local === 'page') page = { title: '', ns: '', id: '', revision: {}, text: '' };
    if (tag.local === 'namespace') namespaceKey = attr('key') ?? '';
    if (tag.local === 'redirect' && page) page.redirect = attr('title');
    if (tag.local === 'text' && page) page.textBytes = attr('bytes');
  });
  parser.on('text', (t) => (chars += t));
  parser.on('closetag', (tag) => {
    const parent = stack[stack.length - 2];
    if (parent === 'siteinfo') dump.siteinfo[tag.local] = chars;
    if (tag.local === 'namespace') dump.namespaces.set(namespaceKey, chars);
    if (page && parent === 'page' && (tag.local === 'title' || tag.local === 'ns' || tag.local === 'id')) page[tag.local] = chars;
    if (page && parent === 'revision') page.revision[tag.local] = chars;
    if (page && tag.local === 'text') page.text = chars;
    if (tag.local === 'page' && page) dump.pages.push(page), (page = undefined);
    stack.pop();
    chars = '';
  });
  parser.write(xml).close();
  return dump;
}

describe('demo zhwiki export (corpora/sources/demo-zhwiki.xml)', () => {
  const dump = parseDump(read('corpora/sources/demo-zhwiki.xml'));
  const isDisambiguation = (p: DumpPage) => /\{\{\s*disambig/i.test(p.text);
  const articles = dump.pages.filter((p) => p.ns === '0' && !p.redirect && !isDisambiguation(p));

  it('is a schema 0.11 Chinese export of zhwiki with the usual namespaces', () => {
    expect(dump.rootAttributes.version).toBe('0.11');
    expect(dump.rootAttributes['xml:lang']).toBe('zh');
    expect(dump.rootAttributes.xmlns).toBe('http://www.mediawiki.org/xml/export-0.11/');
    expect(dump.siteinfo.dbname).toBe('zhwiki');
    expect(dump.siteinfo.base).toMatch(/^https:\/\/zh\.wikipedia\.org\//);
    expect([...dump.namespaces.keys()]).toEqual(expect.arrayContaining(['0', '1', '2', '4', '6', '10', '14']));
    expect(dump.namespaces.get('1')).toBe('讨论');
  });

  it('holds at least 22 articles of 750–2600 characters', () => {
    expect(articles.length).toBeGreaterThanOrEqual(22);
    for (const a of articles) expect(a.text.length, a.title).toBeGreaterThanOrEqual(750);
    for (const a of articles) expect(a.text.length, a.title).toBeLessThanOrEqual(2600);
  });

  it('gives every page a title, an id and a complete wikitext revision', () => {
    const ids = dump.pages.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dump.pages) {
      expect(p.title, p.id).not.toBe('');
      expect(p.revision.id, p.title).toMatch(/^\d+$/);
      expect(p.revision.timestamp, p.title).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(p.revision.model, p.title).toBe('wikitext');
      expect(p.revision.format, p.title).toBe('text/x-wiki');
    }
  });

  it('declares each text byte count as its UTF-8 length', () => {
    for (const p of dump.pages) expect(Number(p.textBytes), p.title).toBe(Buffer.byteLength(p.text, 'utf8'));
  });

  it('has exactly one redirect, pointing at an existing article', () => {
    const redirects = dump.pages.filter((p) => p.redirect !== undefined);
    expect(redirects).toHaveLength(1);
    const [redirect] = redirects;
    expect(redirect?.text).toMatch(/^#(REDIRECT|重定向)\s*\[\[/i);
    expect(articles.map((a) => a.title)).toContain(redirect?.redirect);
  });

  it('has a disambiguation page and a page outside the article namespace', () => {
    expect(dump.pages.filter(isDisambiguation)).toHaveLength(1);
    expect(dump.pages.some((p) => p.ns !== '0')).toBe(true);
  });

  it('uses real wikitext markup: templates, named and reused refs, tables, files, categories', () => {
    const all = articles.map((a) => a.text).join('\n');
    for (const marker of ['{{Infobox', '{{lang|', '{{cite book|', '{{reflist}}', '<references/>', '{| class="wikitable"', '[[File:', '|thumb|', '[[Category:', "'''", '=== ']) {
      expect(all, marker).toContain(marker);
    }
    expect(all).toMatch(/\{\{(citation needed|来源请求)\}\}/);
    expect(all).toMatch(/<ref name="[^"]+"\s*\/>/);
    expect(all).toMatch(/\[\[[^\]|]+\|[^\]]+\]\]/);
  });

  it('writes some articles in traditional characters', () => {
    const traditional = articles.filter((a) => toSimplified(a.text) !== a.text);
    expect(traditional.length).toBeGreaterThanOrEqual(2);
  });
});

// ---------------------------------------------------------------- ProHist-format mini benchmark

const ProHistRecord = z.object({
  id: z.string().min(1),
  category: z.enum(['名词解释', '简答题', '论述题', '策论题', '选择题']),
  question: z.string().min(1),
  rubrics: z.string().min(1),
  reference_answer: z.string().min(1),
  rubric_axis: z.array(z.string().min(1)).min(1),
  level_of_difficulty: z.number().int().min(1).max(3),
  dynasty: z.string().min(1),
  topic: z.string().min(1),
  length_constraint: z.number().int().positive().optional(),
  answer: z.string().regex(/^[A-D]+$/).optional(),
});

/** Numbered rubric items (`1、`, `1.`, `1【`) of one half, the first possibly on the header line. */
function rubricItems(half: string): string[] {
  return half
    .replace(/^(加分项|减分项)[：:]\s*/, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\d+\s*[、.．【]/.test(line));
}

describe('demo ProHist benchmark (experiments/data/demo-prohist.json)', () => {
  const records = z.array(ProHistRecord).parse(JSON.parse(read('experiments/data/demo-prohist.json')));
  const byCategory = (c: string) => records.filter((r) => r.category === c);

  it('mixes the categories: 4 term, 4 short-answer, 3 essay, 1 policy essay, 2 multiple choice', () => {
    expect(byCategory('名词解释')).toHaveLength(4);
    expect(byCategory('简答题')).toHaveLength(4);
    expect(byCategory('论述题')).toHaveLength(3);
    expect(byCategory('策论题')).toHaveLength(1);
    expect(byCategory('选择题')).toHaveLength(2);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  });

  it('gives every rubric a bonus half whose every item carries a weight marker', () => {
    for (const r of records) {
      const [bonus, deduction] = r.rubrics.split(/(?=减分项[：:])/);
      expect(bonus, r.id).toMatch(/^加分项[：:]/);
      const items = rubricItems(bonus ?? '');
      expect(items.length, r.id).toBeGreaterThanOrEqual(2);
      for (const item of items) expect(item, r.id).toMatch(/\{\+\d+\}/);
      for (const item of rubricItems(deduction ?? '')) expect(item, r.id).toMatch(/\{-\d+\}/);
    }
  });

  it('exercises every rubric layout: item on the header line, all three numberings, double markers', () => {
    const all = records.map((r) => r.rubrics).join('\n');
    expect(records.some((r) => /^加分项[：:]\s*\d/.test(r.rubrics))).toBe(true);
    expect(all).toMatch(/^\d+、/m);
    expect(all).toMatch(/^\d+\./m);
    expect(all).toMatch(/^\d+【/m);
    expect(all).toMatch(/\{\+\d+\}\{\+\d+\}/);
    for (const penalty of ['{-5}', '{-3}', '{-1}']) expect(all).toContain(penalty);
  });

  it('gives the policy essay a length limit its reference answer respects', () => {
    for (const r of byCategory('策论题')) {
      expect(r.length_constraint, r.id).toBeDefined();
      expect(countCjkChars(r.reference_answer)).toBeLessThanOrEqual(r.length_constraint ?? 0);
    }
  });

  it('gives each multiple-choice question an answer among the options it lists', () => {
    for (const r of byCategory('选择题')) {
      expect(r.answer, r.id).toBeDefined();
      for (const letter of r.answer ?? '') expect(r.question, r.id).toMatch(new RegExp(`^${letter}[.．、]`, 'm'));
      expect(r.reference_answer).toContain(`\\boxed{${r.answer}}`);
    }
  });
});

// ---------------------------------------------------------------- LongHisDoc-format sample

const LongHisDocRecord = z.object({
  doc_id: z.string(),
  item_id: z.string(),
  question: z.string().min(1),
  answer: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]),
  evidence_pages: z.string().regex(/^\[(\d+(, \d+)*)?\]$/),
  input_pages: z.string().regex(/^\[\d+(, \d+)*\]$/),
  type: z.enum(['Single Page', 'Cross Pages', 'Multi Hop', 'Unanswerable']),
  answer_type: z.enum(['Str', 'List', 'Int', 'None', 'Bool', 'Enum']),
  evidence_modal: z.enum(['text', 'layout', 'visual', '']),
  book_name: z.string().min(1),
  guji_type_zh: z.string().min(1),
  guji_type_en: z.string().min(1),
});
const OcrFile = z.record(z.string().regex(/^\d+$/), z.object({ punc: z.string().min(1).optional() }));

describe('demo LongHisDoc sample (corpora/sources/demo-longhisdoc)', () => {
  const dir = 'corpora/sources/demo-longhisdoc';
  const qa = z.record(z.string(), z.array(LongHisDocRecord)).parse(JSON.parse(read(`${dir}/qa.json`)));
  const records = Object.values(qa).flat();
  const ocrFiles = readdirSync(resolve(root, dir, 'OCR_res')).filter((f) => f.endsWith('.json'));
  const ocr = new Map(ocrFiles.map((f) => [f.replace(/\.json$/, ''), OcrFile.parse(JSON.parse(read(`${dir}/OCR_res/${f}`)))]));
  const pageText = (docId: string, onePage: number) => ocr.get(docId)?.[String(onePage - 1)]?.punc ?? '';

  it('has three documents of 8–15 pages keyed "0", "1", … without gaps', () => {
    expect(ocr.size).toBe(3);
    for (const [docId, pages] of ocr) {
      const keys = Object.keys(pages).map(Number).sort((a, b) => a - b);
      expect(keys.length, docId).toBeGreaterThanOrEqual(8);
      expect(keys.length, docId).toBeLessThanOrEqual(15);
      expect(keys, docId).toEqual(keys.map((_, i) => i));
    }
  });

  it('has a page without punc text, to exercise the empty-page rule', () => {
    const empty = [...ocr.values()].flatMap((pages) => Object.values(pages)).filter((p) => p.punc === undefined);
    expect(empty.length).toBeGreaterThanOrEqual(1);
  });

  it('keys each QA list by its records’ doc_id, with an OCR file and unique item ids', () => {
    expect(records.length).toBeGreaterThanOrEqual(12);
    for (const [docId, list] of Object.entries(qa)) {
      expect(ocr.has(docId), docId).toBe(true);
      for (const r of list) expect(r.doc_id).toBe(docId);
    }
    expect(new Set(records.map((r) => r.item_id)).size).toBe(records.length);
  });

  it('covers every question type and every answer type', () => {
    expect(new Set(records.map((r) => r.type))).toEqual(new Set(['Single Page', 'Cross Pages', 'Multi Hop', 'Unanswerable']));
    expect(new Set(records.map((r) => r.answer_type))).toEqual(new Set(['Str', 'List', 'Int', 'None', 'Bool', 'Enum']));
  });

  it('writes each gold answer in its type’s format', () => {
    for (const r of records) {
      const a = r.answer;
      if (r.answer_type === 'Int') expect(Array.isArray(a) && /^\d+$/.test(String(a[0])) && a.length === 2, r.item_id).toBe(true);
      if (r.answer_type === 'None') expect(a, r.item_id).toBe('无法回答');
      if (r.answer_type === 'Bool') expect(['是', '否'], r.item_id).toContain(a);
      if (r.answer_type === 'Enum') expect(a, r.item_id).toMatch(/^[A-D]$/);
      if (r.answer_type === 'List') expect(Array.isArray(a) && a.length >= 2, r.item_id).toBe(true);
      if (r.answer_type === 'Str') expect(typeof a === 'string' && a.length > 0, r.item_id).toBe(true);
    }
  });

  it('points answerable items at existing, non-empty evidence pages and unanswerable ones at none', () => {
    for (const r of records) {
      const evidence = JSON.parse(r.evidence_pages) as number[];
      const input = JSON.parse(r.input_pages) as number[];
      expect(input, r.item_id).toEqual(input.map((_, i) => i + 1));
      expect(input.length, r.item_id).toBe(Object.keys(ocr.get(r.doc_id) ?? {}).length);
      if (r.type === 'Unanswerable') {
        expect(evidence, r.item_id).toEqual([]);
        continue;
      }
      expect(evidence.length, r.item_id).toBeGreaterThanOrEqual(r.type === 'Single Page' ? 1 : 2);
      for (const p of evidence) expect(pageText(r.doc_id, p), `${r.item_id} page ${p}`).not.toBe('');
    }
  });

  it('finds each string and list answer in the text of its evidence pages', () => {
    for (const r of records.filter((x) => x.answer_type === 'Str' || x.answer_type === 'List')) {
      const text = (JSON.parse(r.evidence_pages) as number[]).map((p) => pageText(r.doc_id, p)).join('');
      for (const part of [r.answer].flat()) expect(text, r.item_id).toContain(String(part));
    }
  });
});

// ---------------------------------------------------------------- generic JSONL QA

const QaLine = z.object({ id: z.string().min(1), question: z.string().min(1), answer: z.string().min(1), category: z.string().min(1) });

describe('demo JSONL QA (experiments/data/demo-qa.jsonl)', () => {
  const lines = read('experiments/data/demo-qa.jsonl').split('\n').filter((l) => l.trim() !== '');

  it('has at least 8 well-formed lines with unique ids', () => {
    expect(lines.length).toBeGreaterThanOrEqual(8);
    const rows = lines.map((l, i) => {
      const parsed = QaLine.safeParse(JSON.parse(l));
      expect(parsed.success, `line ${i + 1}`).toBe(true);
      return parsed.data;
    });
    expect(new Set(rows.map((r) => r?.id)).size).toBe(rows.length);
  });
});
