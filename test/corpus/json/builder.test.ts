import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../../../src/corpus/build.js';
import { type Chunk, readChunks } from '../../../src/runFiles/corpusFiles.js';
import { DataFileError } from '../../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-json-'));
  // The shape of chinese-poetry's 全唐诗/poet.tang.*.json files.
  await mkdir(join(dir, 'tang'));
  await writeFile(
    join(dir, 'tang', 'poet.tang.0.json'),
    JSON.stringify([
      { id: 'a1', title: '靜夜思', author: '李白', paragraphs: ['床前明月光，疑是地上霜。', '舉頭望明月，低頭思故鄉。'] },
      { id: 'a2', title: '春曉', author: '孟浩然', paragraphs: ['春眠不覺曉，處處聞啼鳥。', '夜來風雨聲，花落知多少。'] },
    ]),
  );
  await writeFile(join(dir, 'tang', 'poet.tang.1000.json'), JSON.stringify([{ id: 'a3', title: '無題', author: '佚名', paragraphs: [] }]));
  await writeFile(join(dir, 'plain.jsonl'), ['{"id": 7, "title": "甲", "text": "甲文。"}', '', '{"title": "乙", "text": "乙文。"}', '{"title": "丙"}'].join('\n'));
  await writeFile(join(dir, 'bad.jsonl'), '{"id": 1, "text": "好。"}\n{"id": 2, "text": ["x", 3]}\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function build(name: string, builder: Record<string, unknown>) {
  const out = join(dir, 'out', name);
  const manifest = await buildCorpus({ name, builder: { name: 'json', ...builder }, out, chunking: { maxSize: 100 } });
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  return { manifest, chunks };
}

describe('json builder', () => {
  it('makes one document per record from a directory of chinese-poetry files, joining paragraphs', async () => {
    const { chunks, manifest } = await build('tang', { input: join(dir, 'tang'), fields: { text: 'paragraphs', meta: ['author'] } });
    expect(chunks[0]).toEqual({
      id: 'tang:a1:0',
      docId: 'a1',
      title: '靜夜思',
      text: '床前明月光，疑是地上霜。\n舉頭望明月，低頭思故鄉。',
      meta: { source: 'poet.tang.0.json', author: '李白', spans: [{ doc: 'a1', start: 0, end: 25 }] },
    });
    expect(manifest.counts.documentsSkipped).toEqual({ emptyText: 1 });
  });

  it('converts to simplified Chinese when asked', async () => {
    const { chunks } = await build('tang-s', { input: join(dir, 'tang'), fields: { text: 'paragraphs', meta: ['author'] }, simplify: true });
    expect(chunks[0]!.title).toBe('静夜思');
    expect(chunks[0]!.text).toContain('举头望明月');
  });

  it('reads JSONL with the default id/title/text fields, numbering records without an id', async () => {
    const { chunks, manifest } = await build('plain', { input: join(dir, 'plain.jsonl') });
    expect(chunks.map((c) => [c.id, c.title, c.text])).toEqual([
      ['plain:7:0', '甲', '甲文。'],
      ['plain:plain-2:0', '乙', '乙文。'],
    ]);
    expect(manifest.counts.documentsSkipped).toEqual({ noText: 1 });
  });

  it('rejects a text field of the wrong type, naming file and record', async () => {
    const error = await build('bad', { input: join(dir, 'bad.jsonl') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toMatch(/bad\.jsonl: record 2: field "text" must be a string or an array of strings/);
  });
});
