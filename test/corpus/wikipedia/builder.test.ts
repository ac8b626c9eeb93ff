import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../../../src/corpus/build.js';
import { type Chunk, readChunks } from '../../../src/runFiles/corpusFiles.js';

const dump = join(import.meta.dirname, '..', 'fixtures', 'mini-dump-multistream.xml.bz2');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-wiki-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function build(name: string, params: Record<string, unknown> = {}) {
  const out = join(dir, name);
  const manifest = await buildCorpus({ name, builder: { name: 'wikipedia-dump', input: dump, ...params }, out, chunking: { maxSize: 40 } });
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  return { manifest, chunks };
}

describe('wikipedia-dump builder', () => {
  it('parses articles in a worker thread into simplified, sectioned chunks with page id and URL', async () => {
    const { chunks } = await build('zhwiki', { workers: 1 });
    const first = chunks[0]!;
    expect(first).toMatchObject({ id: 'zhwiki:101:0', docId: '101', title: '科举' });
    expect(first.text).toBe('科举是中国古代通过考试选拔官员的制度。始于隋朝，废于清朝。');
    expect(first.meta).toMatchObject({ pageId: '101', url: 'https://zh.wikipedia.org/wiki/%E7%A7%91%E8%88%89', originalTitle: '科舉' });
    expect(chunks.find((c) => c.text.includes('八股文'))?.meta.section).toBe('历史 > 明清');
    expect(chunks.some((c) => c.text.includes('进士') && c.docId === '101')).toBe(false); // 參見 dropped
  });

  it('skips other namespaces, redirects and disambiguation pages, counted per reason', async () => {
    const { manifest, chunks } = await build('skips', { workers: 0 });
    expect(manifest.counts.documentsRead).toBe(6);
    expect(manifest.counts.documentsSkipped).toEqual({ redirect: 1, namespace: 1, disambiguation: 1 });
    expect([...new Set(chunks.map((c) => c.docId))]).toEqual(['101', '105', '106']);
  });

  it('keeps disambiguation pages when told to', async () => {
    const { chunks } = await build('dab', { workers: 0, skipDisambiguation: false });
    expect(chunks.some((c) => c.docId === '104')).toBe(true);
  });

  it('filters by title, category and minimum length', async () => {
    expect((await build('titles', { workers: 0, titles: ['殿试'] })).manifest.counts.documentsSkipped.titleFilter).toBe(3);
    const byCategory = await build('cats', { workers: 0, categories: ['中国科举'] });
    expect([...new Set(byCategory.chunks.map((c) => c.docId))]).toEqual(['101', '105']);
    const long = await build('long', { workers: 0, minLength: 20 });
    expect(long.manifest.counts.documentsSkipped.tooShort).toBe(1);
  });

  it('keeps traditional characters with simplify off', async () => {
    const { chunks } = await build('trad', { workers: 0, simplify: false });
    expect(chunks[0]!.title).toBe('科舉');
    expect(chunks[0]!.text).toContain('中國古代');
  });
});
