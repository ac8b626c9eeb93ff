import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Chunk, CorpusManifest } from '../../src/runFiles/corpusFiles.js';
import { generateFixtureModel } from '../../src/embedding/fixture/generateFixtureModel.js';

/** A small corpus: two "books" of OCR pages (meta.page, one-based) and a few Wikipedia-style chunks. */
export function sampleChunks(): Chunk[] {
  const pages = (docId: string, title: string, texts: string[]): Chunk[] =>
    texts.map((text, i) => ({ id: `test:${docId}:${i}`, docId, title, text, meta: { page: i + 1, book_name: title } }));
  return [
    ...pages('book-a', '史記', [
      '秦始皇二十六年，初并天下，分天下以為三十六郡。',
      '項羽力能扛鼎，才氣過人，吳中子弟皆已憚籍矣。',
      '高祖為人，隆準而龍顏，美須髯，左股有七十二黑子。',
      '太史公曰：余讀孔氏書，想見其為人。',
    ]),
    ...pages('book-b', '漢書', [
      '武帝即位，招選天下文學材智之士。',
      '張騫鑿空，西域諸國始通於漢。',
      '霍去病六擊匈奴，封狼居胥山。',
    ]),
    ...['科举制度始于隋朝，唐朝完善，明清以八股文取士。', '殿试由皇帝亲自主持，第一名称为状元。', '乡试在省城举行，考中者称为举人。', '会试在京城举行，考中者称为贡士。', '童试包括县试、府试和院试三个阶段。'].map(
      (text, i): Chunk => ({ id: `test:wiki-keju:${i}`, docId: 'wiki-keju', title: '科举', text, meta: { section: i } }),
    ),
  ];
}

/** Writes `chunks.jsonl` and a complete `manifest.json` the way a corpus builder does. */
export async function writeTestCorpus(dir: string, chunks: Chunk[] = sampleChunks(), name = 'test'): Promise<string> {
  await mkdir(dir, { recursive: true });
  const body = chunks.map((chunk) => JSON.stringify(chunk)).join('\n') + '\n';
  await writeFile(join(dir, 'chunks.jsonl'), body);
  const manifest: CorpusManifest = {
    name,
    builder: 'test',
    complete: true,
    source: { path: 'test' },
    parameters: {},
    counts: { documentsRead: new Set(chunks.map((c) => c.docId)).size, documentsSkipped: {}, chunksWritten: chunks.length, duplicateChunksDropped: 0 },
    contentHash: createHash('sha256').update(body).digest('hex'),
    toolVersion: 'test',
    timings: {},
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

/** The small generated embedding model (64-d), in `dir`. */
export async function fixtureModel(dir: string, seed = 7): Promise<string> {
  return (await generateFixtureModel({ outDir: dir, seed, dim: 64 })).dir;
}
