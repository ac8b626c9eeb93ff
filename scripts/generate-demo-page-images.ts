/**
 * Page scans for the bundled LongHisDoc-format sample: every page of
 * corpora/sources/demo-longhisdoc/OCR_res/<doc_id>.json drawn as a small woodblock-style JPEG,
 * written to corpora/sources/demo-longhisdoc/LongHisDoc_IMG/<doc_id>/page_<n>.jpg (n one-based,
 * page n ↔ OCR key n−1, the release's layout). The files are committed; rerun after editing the
 * OCR text (or to check that nothing changed):
 *
 *   node --import tsx scripts/generate-demo-page-images.ts [--source corpora/sources/demo-longhisdoc] [--out DIR]
 *
 * A page: paper-coloured ground, a double frame, column rules, the text in vertical columns read
 * right to left and top to bottom (a short first sentence is a heading column of its own), the
 * OCR's punctuation drawn as small 句讀 circles beside the character (a woodblock has no
 * punctuation cells), and a fold strip (版心) on the left with the book's title and the page number
 * in Chinese numerals. Some things on a page are deliberately absent from the OCR, so that image
 * input has something OCR input lacks: a collector's red seal on each book's first page and an
 * illustration (考場圖) on pages whose OCR is empty; `qa-visual.json` beside the OCR asks about both.
 *
 * Deterministic: no randomness, no dates; the same sharp/librsvg and fonts give the same bytes.
 * Needs a CJK font known to fontconfig (Debian: `apt-get install fonts-noto-cjk`; `fc-list :lang=zh`).
 * About 600×900 px, JPEG quality 70: a few tens of KB a page.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { readOcrPages } from '../src/corpus/longhisdoc/ocrFile.js';

const { values } = parseArgs({
  options: {
    source: { type: 'string', default: 'corpora/sources/demo-longhisdoc' },
    out: { type: 'string' },
  },
});
const source = resolve(values.source!);
const outDir = resolve(values.out ?? join(source, 'LongHisDoc_IMG'));

const WIDTH = 600;
const HEIGHT = 900;
const QUALITY = 70;
const FRAME = { left: 34, top: 70, right: WIDTH - 34, bottom: HEIGHT - 56 };
const STRIP = 46; // the fold strip (版心) on the left, inside the frame
const COLUMNS = 10;
const ROWS = 19;
const FONT_SIZE = 34;
const INK = '#2b2118';
const PAPER = '#eadcbc';
const SEAL_RED = '#b3261e';
const SEAL_SIZE = 92;

/** Seal texts of the sample's (invented) collectors, read right column first, top to bottom (qa-visual.json asks about them). */
const SEALS: Record<string, string> = { '90001': '硯北藏書', '90002': '古香齋印', '90003': '童蒙館藏' };

/** Brackets turned for vertical setting; sentence marks become 句讀 circles beside the character. */
const VERTICAL_FORMS: Record<string, string> = { '「': '﹁', '」': '﹂', '『': '﹃', '』': '﹄', '（': '︵', '）': '︶', '《': '︽', '》': '︾' };
const PAUSE_MARKS = new Set(['。', '，', '、', '；', '：', '？', '！']);

interface Cell {
  char: string;
  /** A 句讀 circle after this character. */
  mark: boolean;
}

function assertCjkFont(): string {
  let families = '';
  try {
    families = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' });
  } catch {
    // fall through to the message below
  }
  const serif = families.split('\n').find((f) => /Noto Serif CJK TC/.test(f));
  const any = families.split('\n').find((f) => f.trim());
  if (!serif && !any) throw new Error('no CJK font known to fontconfig (`fc-list :lang=zh` is empty): install fonts-noto-cjk and rerun');
  return serif ? 'Noto Serif CJK TC' : any!.split(',')[0]!.trim();
}

/** The page's text as cells in reading order, split into columns (a heading column first when the page opens with a short sentence). */
function layoutColumns(text: string): Cell[][] {
  const cells: Cell[] = [];
  let headingEnd = -1;
  for (const char of text.replace(/\s+/g, '')) {
    if (PAUSE_MARKS.has(char)) {
      if (cells.length > 0) cells[cells.length - 1]!.mark = true;
      if (headingEnd < 0) headingEnd = cells.length;
      continue;
    }
    cells.push({ char: VERTICAL_FORMS[char] ?? char, mark: false });
  }
  const columns: Cell[][] = [];
  let rest = cells;
  if (headingEnd > 0 && headingEnd <= 8) {
    // A heading is set two cells down, the way block-printed section titles are indented.
    columns.push(cells.slice(0, headingEnd).map((cell) => ({ ...cell, mark: false })));
    rest = cells.slice(headingEnd);
  }
  for (let i = 0; i < rest.length; i += ROWS) columns.push(rest.slice(i, i + ROWS));
  if (columns.length > COLUMNS) throw new Error(`a page holds at most ${COLUMNS} columns of ${ROWS} characters; this one needs ${columns.length}`);
  return columns;
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const NUMERALS = ['〇', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
function chineseNumber(n: number): string {
  if (n < 10) return NUMERALS[n]!;
  if (n < 20) return `十${n % 10 ? NUMERALS[n % 10] : ''}`;
  if (n < 100) return `${NUMERALS[Math.floor(n / 10)]}十${n % 10 ? NUMERALS[n % 10] : ''}`;
  return String(n).split('').map((d) => NUMERALS[Number(d)]).join('');
}

function verticalText(chars: string, x: number, top: number, step: number, size: number, font: string, fill = INK): string {
  return [...chars]
    .map((char, i) => `<text x="${x}" y="${top + i * step}" font-size="${size}" font-family="${font}" fill="${fill}" text-anchor="middle" dominant-baseline="central">${escapeXml(char)}</text>`)
    .join('');
}

function sealSvg(text: string, x: number, y: number, size: number, font: string): string {
  const chars = [...text];
  const half = size / 2;
  // 白文 seal: characters left unprinted in a red square; right column first, top to bottom.
  const at = [
    [x + half * 1.5, y + half * 0.5],
    [x + half * 1.5, y + half * 1.5],
    [x + half * 0.5, y + half * 0.5],
    [x + half * 0.5, y + half * 1.5],
  ];
  const glyphs = chars
    .map((char, i) => `<text x="${at[i]![0]}" y="${at[i]![1]}" font-size="${half * 0.86}" font-family="${font}" font-weight="bold" fill="${PAPER}" text-anchor="middle" dominant-baseline="central">${escapeXml(char)}</text>`)
    .join('');
  return `<g opacity="0.88"><rect x="${x}" y="${y}" width="${size}" height="${size}" rx="4" fill="${SEAL_RED}"/>${glyphs}</g>`;
}

/** A block-printed plan of an examination compound: walls, gate, hall and rows of cells. */
function illustrationSvg(left: number, top: number, width: number, height: number, font: string): string {
  const parts: string[] = [];
  const line = (x1: number, y1: number, x2: number, y2: number, w = 2) => parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${INK}" stroke-width="${w}"/>`);
  const box = (x: number, y: number, w: number, h: number, sw = 2) => parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${INK}" stroke-width="${sw}"/>`);
  const m = 24;
  box(left + m, top + m + 60, width - 2 * m, height - 2 * m - 60, 4);
  // Caption column at the right edge, as plates in a block-printed book carry their titles.
  parts.push(verticalText('考場圖', left + width - m - 26, top + m + 100, 44, 36, font));
  // Main hall at the top centre with a roof line.
  const hallW = 150;
  const hallX = left + (width - hallW) / 2 - 20;
  box(hallX, top + m + 90, hallW, 70);
  line(hallX - 16, top + m + 90, hallX + hallW / 2, top + m + 62, 3);
  line(hallX + hallW / 2, top + m + 62, hallX + hallW + 16, top + m + 90, 3);
  // Central walk and rows of cells on both sides.
  const walkX = hallX + hallW / 2;
  line(walkX, top + m + 160, walkX, top + height - m - 50, 1.5);
  for (let row = 0; row < 9; row++) {
    const y = top + m + 190 + row * 52;
    for (let c = 0; c < 4; c++) {
      box(walkX - 30 - (c + 1) * 34, y, 28, 30, 1.5);
      box(walkX + 30 + c * 34, y, 28, 30, 1.5);
    }
  }
  // Gate at the bottom.
  box(walkX - 36, top + height - m - 52, 72, 52, 3);
  line(walkX, top + height - m - 52, walkX, top + height - m, 2);
  return parts.join('');
}

function pageSvg(opts: { title: string; page: number; text: string; seal?: string; illustration: boolean; font: string }): string {
  const { font } = opts;
  const parts: string[] = [];
  parts.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="${PAPER}"/>`);
  // Darker edges, the way an old leaf browns from the outside in (a gradient costs a JPEG almost nothing).
  parts.push(`<defs><radialGradient id="age" cx="50%" cy="50%" r="75%"><stop offset="60%" stop-color="#000" stop-opacity="0"/><stop offset="100%" stop-color="#5a3d12" stop-opacity="0.22"/></radialGradient></defs>`);
  parts.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="url(#age)"/>`);
  const { left, top, right, bottom } = FRAME;
  parts.push(`<rect x="${left - 6}" y="${top - 6}" width="${right - left + 12}" height="${bottom - top + 12}" fill="none" stroke="${INK}" stroke-width="5"/>`);
  parts.push(`<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="none" stroke="${INK}" stroke-width="1.5"/>`);
  // Fold strip: title high, a fish-tail mark, the page number low.
  const stripRight = left + STRIP;
  parts.push(`<line x1="${stripRight}" y1="${top}" x2="${stripRight}" y2="${bottom}" stroke="${INK}" stroke-width="1.5"/>`);
  const stripX = left + STRIP / 2;
  parts.push(`<path d="M ${left} ${top + 40} L ${stripRight} ${top + 40} L ${stripRight} ${top + 56} L ${stripX} ${top + 46} L ${left} ${top + 56} Z" fill="${INK}"/>`);
  parts.push(verticalText(opts.title, stripX, top + 82, 26, 22, font));
  parts.push(verticalText(chineseNumber(opts.page), stripX, bottom - 120, 26, 22, font));
  const textLeft = stripRight;
  const columnWidth = (right - textLeft) / COLUMNS;
  // A plate (illustration) is cut without column rules.
  if (!opts.illustration) {
    for (let c = 1; c < COLUMNS; c++) {
      const x = textLeft + c * columnWidth;
      parts.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${bottom}" stroke="${INK}" stroke-width="0.8" opacity="0.7"/>`);
    }
  }
  const columns = opts.illustration ? [] : layoutColumns(opts.text);
  if (opts.illustration) {
    parts.push(illustrationSvg(textLeft, top, right - textLeft, bottom - top, font));
  } else {
    const rowHeight = (bottom - top - 20) / ROWS;
    columns.forEach((column, c) => {
      const x = right - (c + 0.5) * columnWidth;
      const indent = c === 0 && column.length <= 8 ? 2 : 0;
      column.forEach((cell, r) => {
        const y = top + 10 + (r + indent + 0.5) * rowHeight;
        parts.push(`<text x="${x}" y="${y}" font-size="${FONT_SIZE}" font-family="${font}" fill="${INK}" text-anchor="middle" dominant-baseline="central">${escapeXml(cell.char)}</text>`);
        if (cell.mark) parts.push(`<circle cx="${x + columnWidth * 0.38}" cy="${y + rowHeight * 0.42}" r="3" fill="none" stroke="${SEAL_RED}" stroke-width="1.6"/>`);
      });
    });
  }
  if (opts.seal) {
    // In the first two empty columns after the text, low down, so that the seal hides no character the OCR has.
    const used = Math.min(columns.length, COLUMNS - 2);
    parts.push(sealSvg(opts.seal, right - (used + 2) * columnWidth + (2 * columnWidth - SEAL_SIZE) / 2, bottom - SEAL_SIZE - 40, SEAL_SIZE, font));
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">${parts.join('')}</svg>`;
}

async function bookTitles(): Promise<Map<string, string>> {
  const qa = JSON.parse(await readFile(join(source, 'qa.json'), 'utf8')) as Record<string, { book_name?: string }[]>;
  const titles = new Map<string, string>();
  for (const [docId, records] of Object.entries(qa)) {
    const name = records.find((r) => r.book_name)?.book_name ?? docId;
    titles.set(docId, /《([^》]+)》/.exec(name)?.[1] ?? name);
  }
  return titles;
}

async function main() {
  const font = assertCjkFont();
  const titles = await bookTitles();
  const ocrDir = join(source, 'OCR_res');
  const files = (await readdir(ocrDir)).filter((f) => f.endsWith('.json')).sort();
  await rm(outDir, { recursive: true, force: true });
  let total = 0;
  let count = 0;
  for (const file of files) {
    const docId = file.replace(/\.json$/, '');
    const pages = await readOcrPages(join(ocrDir, file));
    await mkdir(join(outDir, docId), { recursive: true });
    for (const page of pages) {
      const svg = pageSvg({
        title: titles.get(docId) ?? docId,
        page: page.page,
        text: page.text,
        seal: page.page === 1 ? SEALS[docId] : undefined,
        illustration: page.text.trim() === '',
        font,
      });
      const jpeg = await sharp(Buffer.from(svg)).jpeg({ quality: QUALITY, mozjpeg: true }).toBuffer();
      await writeFile(join(outDir, docId, `page_${page.page}.jpg`), jpeg);
      total += jpeg.length;
      count++;
    }
  }
  console.log(`${count} page images, ${(total / 1024).toFixed(0)} KB in all (${(total / count / 1024).toFixed(1)} KB a page), in ${outDir} (font: ${font})`);
}

await main();
