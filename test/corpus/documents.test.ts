import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkSpan } from '../../src/chunking/chunker.js';
import { type Chunk, readChunks, readCorpusDocuments } from '../../src/runFiles/corpusFiles.js';
import { buildCorpus } from '../../src/corpus/build.js';

const demoDump = resolve('corpora', 'sources', 'demo-zhwiki.xml');
const demoOcr = resolve('corpora', 'sources', 'demo-longhisdoc');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-documents-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const noSpace = (text: string) => text.replace(/\s+/gu, '');
/** Spans are code-point offsets. */
const slicePoints = (text: string, start: number, end: number) => Array.from(text).slice(start, end).join('');

/** Every chunk's spans, read from documents.jsonl, are its text (up to whitespace, less a heading prefix). */
async function expectSpansInDocuments(out: string, headingPrefix = false): Promise<{ chunks: Chunk[]; documents: Map<string, string> }> {
  const documents = new Map<string, string>();
  for await (const document of readCorpusDocuments(out)) {
    const earlier = documents.get(document.doc);
    if (earlier !== undefined) expect(document.text).toBe(earlier);
    documents.set(document.doc, document.text);
  }
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  for (const chunk of chunks) {
    const spans = chunk.meta.spans as ChunkSpan[];
    expect(spans.length, chunk.id).toBeGreaterThan(0);
    const text = spans.map((span) => slicePoints(documents.get(span.doc)!, span.start, span.end)).join('');
    const prefix = headingPrefix && chunk.meta.section ? `${chunk.meta.section}\n` : '';
    expect(noSpace(text), chunk.id).toBe(noSpace(chunk.text.slice(prefix.length)));
  }
  return { chunks, documents };
}

describe.runIf(existsSync(demoDump))('documents.jsonl: the texts chunk spans point into', () => {
  it('a dump built in worker threads and in this thread writes the same documents, and every chunk span reads its text', async () => {
    const threads = join(dir, 'threads');
    const here = join(dir, 'here');
    await buildCorpus({ name: 'demo', builder: { name: 'wikipedia-dump', input: demoDump, workers: 1 }, out: threads, chunking: { maxSize: 90, overlap: 20, headingPrefix: true } });
    await buildCorpus({ name: 'demo', builder: { name: 'wikipedia-dump', input: demoDump, workers: 0 }, out: here, chunking: { maxSize: 90, overlap: 20, headingPrefix: true } });
    expect(readFileSync(join(threads, 'documents.jsonl'), 'utf8')).toBe(readFileSync(join(here, 'documents.jsonl'), 'utf8'));
    const { chunks, documents } = await expectSpansInDocuments(threads, true);
    expect(chunks.length).toBeGreaterThan(20);
    expect(documents.size).toBeGreaterThan(3);
  });

  it('the fixed method cuts the same chunks in worker threads as here, each exactly its range of its document (less the whitespace around it)', async () => {
    const chunking = { maxSize: 60, overlap: 15, method: 'fixed' as const };
    await buildCorpus({ name: 'fixed', builder: { name: 'wikipedia-dump', input: demoDump, workers: 1 }, out: join(dir, 'fixed-threads'), chunking });
    await buildCorpus({ name: 'fixed', builder: { name: 'wikipedia-dump', input: demoDump, workers: 0 }, out: join(dir, 'fixed-here'), chunking });
    expect(readFileSync(join(dir, 'fixed-threads', 'chunks.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'fixed-here', 'chunks.jsonl'), 'utf8'));
    const { chunks, documents } = await expectSpansInDocuments(join(dir, 'fixed-threads'));
    for (const chunk of chunks) {
      const [span] = chunk.meta.spans as ChunkSpan[];
      expect(slicePoints(documents.get(span!.doc)!, span!.start, span!.end).trim()).toBe(chunk.text);
    }
  });

  it('a LongHisDoc page window gives spans in its pages', async () => {
    const out = join(dir, 'pages');
    await buildCorpus({ name: 'pages', builder: { name: 'longhisdoc-ocr', input: join(demoOcr, 'OCR_res'), windows: { size: 2 } }, out, chunking: { maxSize: 4000 } });
    const { chunks, documents } = await expectSpansInDocuments(out);
    expect([...documents.keys()].every((doc) => /-p\d+$/.test(doc))).toBe(true);
    const window = chunks.find((chunk) => chunk.meta.window === 2 && (chunk.meta.spans as ChunkSpan[]).length === 2)!;
    expect((window.meta.spans as ChunkSpan[]).map((span) => span.doc)).toEqual((window.meta.pages as number[]).map((page) => `${window.docId}-p${page}`));
  });
});
