import { existsSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarks } from '../../src/benchmarks/registry.js';

const REAL_FILE = resolve('../shared/data/LongHisDoc.json');
const hasRealFile = existsSync(REAL_FILE);
if (!hasRealFile) console.log(`note: ${REAL_FILE} is absent; the tests on the real LongHisDoc file are skipped`);

async function load(spec: Record<string, unknown>) {
  return (await benchmarks.create({ name: 'longhisdoc', ...spec } as { name: string }, undefined)).load();
}

const record = (over: Record<string, unknown> = {}) => ({
  doc_id: 'd1',
  item_id: 'd1_1',
  question: '问题',
  answer: '答案',
  evidence_pages: '[2, 3]',
  input_pages: '[1, 2, 3]',
  type: 'Cross Pages',
  answer_type: 'Str',
  evidence_modal: 'text',
  book_name: '《某书》',
  guji_type_zh: '史藏',
  guji_type_en: 'History',
  ...over,
});

function qaFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hisrag-lhd-')), 'qa.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('longhisdoc loader', () => {
  it('turns page strings into one-based page numbers and the record into an item', async () => {
    const [item] = await load({ file: qaFile({ d1: [record()] }) });
    expect(item).toMatchObject({
      id: 'd1_1',
      kind: 'longhisdoc',
      category: 'Cross Pages',
      task: 'Cross Pages',
      docId: 'd1',
      evidencePages: [2, 3],
      inputPages: [1, 2, 3],
      answerType: 'Str',
      evidenceModal: 'text',
      meta: { book_name: '《某书》', guji_type_en: 'History' },
    });
  });

  it('names file, document, record index and field of a bad record', async () => {
    const path = qaFile({ d1: [record(), record({ evidence_pages: '11, 12' })] });
    await expect(load({ file: path })).rejects.toThrow(`${path}: d1[1].evidence_pages`);
  });

  it('points each item at its OCR file and refuses an OCR folder that lacks one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-ocr-'));
    mkdirSync(join(dir, 'OCR_res'));
    writeFileSync(join(dir, 'OCR_res', 'd1.json'), '{}');
    const path = qaFile({ d1: [record()] });
    const [item] = await load({ file: path, ocrDir: join(dir, 'OCR_res') });
    expect(item!.meta.ocrFile).toBe(join(dir, 'OCR_res', 'd1.json'));
    const other = qaFile({ d2: [record({ doc_id: 'd2', item_id: 'd2_1' })] });
    await expect(load({ file: other, ocrDir: join(dir, 'OCR_res') })).rejects.toThrow(/no OCR file for 1 of 1 documents/);
  });

  describe.runIf(hasRealFile)('on the real LongHisDoc.json', () => {
    it('loads every record: 101 documents, 1012 items', async () => {
      const items = await load({ file: REAL_FILE });
      expect(items).toHaveLength(1012);
      expect(new Set(items.map((i) => i.docId)).size).toBe(101);
      expect(new Set(items.map((i) => i.id)).size).toBe(1012);
    });

    it('has the published type and answer-type counts', async () => {
      const items = await load({ file: REAL_FILE });
      const count = (key: (i: (typeof items)[number]) => unknown) => {
        const out: Record<string, number> = {};
        for (const item of items) out[String(key(item))] = (out[String(key(item))] ?? 0) + 1;
        return out;
      };
      expect(count((i) => i.task)).toEqual({ 'Single Page': 546, 'Cross Pages': 196, 'Multi Hop': 172, Unanswerable: 98 });
      expect(count((i) => i.answerType)).toEqual({ Str: 571, List: 131, Int: 119, None: 98, Bool: 57, Enum: 36 });
    });

    it('gives unanswerable items no evidence pages', async () => {
      const items = await load({ file: REAL_FILE, types: ['Unanswerable'] });
      expect(items).toHaveLength(98);
      expect(items.every((i) => i.evidencePages!.length === 0 && i.answer === '无法回答')).toBe(true);
    });

    it('filters by answer type and evidence modality', async () => {
      const items = await load({ file: REAL_FILE, answerTypes: ['Bool'], evidenceModals: ['text'] });
      expect(items.length).toBeGreaterThan(0);
      expect(items.every((i) => i.answerType === 'Bool' && i.evidenceModal === 'text')).toBe(true);
    });
  });
});
