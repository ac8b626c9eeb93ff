import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../../src/corpus/build.js';
import { type Chunk, readChunks } from '../../src/runFiles/corpusFiles.js';

// Integration on the bundled demo sources (written by the demo-data engineer), when present.
const demoDump = resolve('corpora', 'sources', 'demo-zhwiki.xml');
const demoOcr = resolve('corpora', 'sources', 'demo-longhisdoc');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-demo-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
const collect = async (out: string) => {
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  return chunks;
};

if (!existsSync(demoDump)) console.log(`note: ${demoDump} is absent; skipping the demo dump integration test`);
describe.runIf(existsSync(demoDump))('the bundled demo zhwiki dump', () => {
  it('builds clean simplified chunks with no wiki markup left', async () => {
    const out = join(dir, 'zhwiki');
    const manifest = await buildCorpus({ name: 'demo', builder: { name: 'wikipedia-dump', input: demoDump, workers: 1 }, out, chunking: { maxSize: 200 } });
    expect(manifest.counts.documentsSkipped).toMatchObject({ redirect: 1, disambiguation: 1 });
    const chunks = await collect(out);
    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks) {
      expect(chunk.text).not.toMatch(/\{\{|\}\}|\[\[|\]\]|<ref|thumb\||Category:|&lt;/);
      expect(chunk.meta.url).toMatch(/^https:\/\/zh\.wikipedia\.org\/wiki\//);
    }
    expect(chunks.some((c) => c.title === '贡院')).toBe(true); // written in traditional script, simplified here
  });
});

if (!existsSync(demoOcr)) console.log(`note: ${demoOcr} is absent; skipping the demo LongHisDoc integration test`);
describe.runIf(existsSync(demoOcr))('the bundled demo LongHisDoc OCR', () => {
  it('builds page chunks and counts the page without punc', async () => {
    const out = join(dir, 'lhd');
    const manifest = await buildCorpus({
      name: 'lhd',
      builder: { name: 'longhisdoc-ocr', input: join(demoOcr, 'OCR_res'), qaFile: join(demoOcr, 'qa.json') },
      out,
      chunking: { maxSize: 400 },
    });
    expect(manifest.counts.emptyPages).toBeGreaterThanOrEqual(1);
    const chunks = await collect(out);
    expect(chunks.every((c) => Number.isInteger(c.meta.page) && (c.meta.page as number) >= 1)).toBe(true);
  });
});
