import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { imagePlaceholder } from '../../src/prompting/messageContent.js';
import type { PageImageRef } from '../../src/runFiles/pageImage.js';

/** One question of the fixture: its Table 3 groups and the score each condition got. */
export interface FixtureItem {
  id: string;
  modal: string;
  type: string;
  answerType: string;
  evidencePage: number;
  ocr: number;
  image: number | 'failed';
  /** Pages the image condition showed, in prompt order. */
  shown: number[];
}

/**
 * Scores chosen so that every figure is easy by hand: image − OCR is +33.33 overall (n 6), −50 on
 * text (n 2), +100 on layout (n 1), +66.67 on visual (n 3); 3 helped, 1 hurt, 2 unchanged. Item 7
 * failed under image input and pairs with nothing.
 */
export const FIXTURE_ITEMS: FixtureItem[] = [
  { id: 'q1', modal: 'text', type: 'Single Page', answerType: 'Str', evidencePage: 1, ocr: 100, image: 100, shown: [1, 2, 3] },
  { id: 'q2', modal: 'text', type: 'Single Page', answerType: 'Int', evidencePage: 2, ocr: 100, image: 0, shown: [2, 3] },
  { id: 'q3', modal: 'layout', type: 'Cross Pages', answerType: 'Str', evidencePage: 3, ocr: 0, image: 100, shown: [3, 2] },
  { id: 'q4', modal: 'visual', type: 'Single Page', answerType: 'Str', evidencePage: 2, ocr: 0, image: 100, shown: [2] },
  { id: 'q5', modal: 'visual', type: 'Cross Pages', answerType: 'Int', evidencePage: 3, ocr: 0, image: 100, shown: [3] },
  { id: 'q6', modal: 'visual', type: 'Single Page', answerType: 'Str', evidencePage: 1, ocr: 100, image: 100, shown: [1] },
  { id: 'q7', modal: 'visual', type: 'Single Page', answerType: 'Str', evidencePage: 1, ocr: 100, image: 'failed', shown: [1, 2] },
];

export const DOC_ID = '90001';
/** Pages the image folder holds: page 4 is never shown, so a bundle must not carry it. */
export const FOLDER_PAGES = [1, 2, 3, 4];

export interface ImageRun {
  root: string;
  runDir: string;
  imageDir: string;
  qaFile: string;
  records: RunItemRecord[];
  /** Bytes of each page file. */
  pageBytes: Record<number, number>;
}

/** A page-like JPEG (pale paper, dark columns), large enough that a thumbnail is clearly smaller. */
async function pageJpeg(page: number): Promise<Buffer> {
  const columns = Array.from({ length: 8 }, (_, i) => `<rect x="${60 + i * 85}" y="80" width="40" height="${900 + ((i * 37 + page * 53) % 200)}" fill="#333"/>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="1200"><rect width="800" height="1200" fill="#efe3c8"/>${columns}<circle cx="${200 + page * 100}" cy="1120" r="40" fill="#b22"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
}

function record(item: FixtureItem, condition: string, images: PageImageRef[] | null, score: number | 'failed'): RunItemRecord {
  const scored = score !== 'failed';
  const context = images ? `【资料1】《测试书》\n${images.map((i) => imagePlaceholder(i)).join('\n')}\n【资料结束】\n` : '';
  return {
    key: `m|${condition}|longhisdoc:${item.id}`,
    itemId: item.id,
    benchmark: 'longhisdoc',
    kind: 'longhisdoc',
    category: item.type,
    task: item.type,
    question: `问题 ${item.id}`,
    model: 'm',
    condition,
    strategy: condition,
    retriever: null,
    k: null,
    prompt: [{ role: 'user', content: `${context}【问题】问题 ${item.id}`, ...(images?.length ? { images } : {}) }],
    retrieved: [],
    contextIds: [],
    truncated: 0,
    response: scored ? { text: `答 ${item.id}`, raw: `答 ${item.id}` } : null,
    score: scored ? { status: 'scored', score, scoreRaw: score, metric: 'accuracy' } : { status: 'generation_failed', score: null, scoreRaw: null, metric: 'accuracy', error: 'endpoint down' },
    groups: { category: item.type, task: item.type, answer_type: item.answerType, evidence_modal: item.modal },
    trace: [],
    durationMs: 5,
  };
}

/**
 * A run directory as the runner leaves it (config.json, manifest.json with `imageDirs`,
 * items.jsonl), written by hand: closed-book, OCR input and image input over the FIXTURE_ITEMS, a
 * LongHisDoc-format QA file (so the viewer knows each item's evidence pages) and an image folder of
 * real JPEGs (`<imageDir>/90001/page_<n>.jpg`) outside the run directory.
 */
export async function writeImageRun(options: { versus?: string[]; withImages?: boolean } = {}): Promise<ImageRun> {
  const root = mkdtempSync(join(tmpdir(), 'hisrag-image-run-'));
  const imageDir = join(root, 'LongHisDoc_IMG');
  mkdirSync(join(imageDir, DOC_ID), { recursive: true });
  const pageBytes: Record<number, number> = {};
  const refs: Record<number, PageImageRef> = {};
  for (const page of FOLDER_PAGES) {
    const jpeg = await pageJpeg(page);
    writeFileSync(join(imageDir, DOC_ID, `page_${page}.jpg`), jpeg);
    pageBytes[page] = jpeg.length;
    refs[page] = { imageDir, path: `${DOC_ID}/page_${page}.jpg`, docId: DOC_ID, page, width: 800, height: 1200, bytes: jpeg.length };
  }
  const qaFile = join(root, 'qa.json');
  const qa = {
    [DOC_ID]: FIXTURE_ITEMS.map((item) => ({
      doc_id: DOC_ID,
      item_id: item.id,
      question: `问题 ${item.id}`,
      answer: '答',
      evidence_pages: `[${item.evidencePage}]`,
      input_pages: '[1, 2, 3, 4]',
      type: item.type,
      answer_type: item.answerType,
      evidence_modal: item.modal,
      book_name: '测试书',
      guji_type_zh: '史部',
      guji_type_en: 'History',
    })),
  };
  writeFileSync(qaFile, JSON.stringify(qa));
  const runDir = join(root, 'runs', 'image-run');
  mkdirSync(runDir, { recursive: true });
  const withImages = options.withImages ?? true;
  const conditions = ['closed-book', 'ocr-input', ...(withImages ? ['image-input'] : [])];
  const records = FIXTURE_ITEMS.flatMap((item) => [
    record(item, 'closed-book', null, 0),
    record(item, 'ocr-input', [], item.ocr),
    ...(withImages ? [record(item, 'image-input', item.shown.map((p) => refs[p]!), item.image)] : []),
  ]);
  const config = {
    name: 'image-fixture',
    benchmark: { name: 'longhisdoc', file: qaFile },
    strategies: ['closed-book'],
    models: [{ name: 'extractive', label: 'm' }],
    scoring: { compat: 'hisrag', textMetrics: false, bootstrapResamples: 200, baseline: 'closed-book', versus: options.versus ?? ['ocr-input'] },
  };
  writeFileSync(join(runDir, 'config.json'), JSON.stringify(config));
  const manifest = { runId: 'image-run', experiment: 'image-fixture', models: ['m'], conditions, imageDirs: withImages ? [imageDir] : [], complete: true };
  writeFileSync(join(runDir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(join(runDir, 'items.jsonl'), records.map((r) => JSON.stringify(r) + '\n').join(''));
  return { root, runDir, imageDir, qaFile, records, pageBytes };
}
