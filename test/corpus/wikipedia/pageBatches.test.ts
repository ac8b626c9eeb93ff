import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataFileError } from '../../../src/errors.js';
import { readDumpPages } from '../../../src/corpus/wikipedia/dumpPages.js';
import type { DumpPage } from '../../../src/corpus/wikipedia/dumpXml.js';
import { DumpXmlReader } from '../../../src/corpus/wikipedia/dumpXml.js';
import { readPageBatches, type PageBatchOptions } from '../../../src/corpus/wikipedia/pageBatches.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-batches-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function pagesOf(path: string): Promise<DumpPage[]> {
  const pages: DumpPage[] = [];
  for await (const page of readDumpPages(path, { bz2Decoder: 'js' })) pages.push(page);
  return pages;
}

// Parses each batch on its own, as a worker does.
async function batchedPages(path: string, options: Partial<PageBatchOptions> = {}) {
  const pages: DumpPage[] = [];
  const batches: { pages: number; firstPage: number; bytes: number }[] = [];
  for await (const batch of readPageBatches(path, { batchBytes: 1, bz2Decoder: 'js', ...options })) {
    const reader = new DumpXmlReader(path);
    const parsed = reader.write(`<pages>${new TextDecoder().decode(batch.xml)}</pages>`);
    parsed.push(...reader.close());
    expect(reader.error).toBeUndefined();
    expect(parsed).toHaveLength(batch.pages);
    expect(batch.xml.byteOffset).toBe(0);
    expect(batch.xml.buffer.byteLength).toBe(batch.xml.length); // its own buffer: transferable
    pages.push(...parsed);
    batches.push({ pages: batch.pages, firstPage: batch.firstPage, bytes: batch.xml.length });
  }
  return { pages, batches };
}

describe('readPageBatches', () => {
  it('cuts a dump into batches of whole pages that parse to the pages of the whole dump', async () => {
    const whole = await pagesOf(join(fixtures, 'mini-dump.xml'));
    const { pages, batches } = await batchedPages(join(fixtures, 'mini-dump.xml'));
    expect(pages).toEqual(whole);
    expect(batches.length).toBe(whole.length); // batchBytes 1: one page a batch
    expect(batches.map((b) => b.firstPage)).toEqual(whole.map((_, i) => i));
  });

  it('fills batches up to batchBytes, from .bz2 and multistream .bz2 alike', async () => {
    const whole = await pagesOf(join(fixtures, 'mini-dump.xml'));
    for (const file of ['mini-dump.xml.bz2', 'mini-dump-multistream.xml.bz2']) {
      const { pages, batches } = await batchedPages(join(fixtures, file), { batchBytes: 1000 });
      expect(pages).toEqual(whole);
      expect(batches.slice(0, -1).every((b) => b.bytes >= 1000)).toBe(true);
    }
  });

  it('passes over the first startAt pages (resume) without handing them out', async () => {
    const whole = await pagesOf(join(fixtures, 'mini-dump.xml'));
    const { pages, batches } = await batchedPages(join(fixtures, 'mini-dump.xml'), { startAt: 3, batchBytes: 500 });
    expect(pages).toEqual(whole.slice(3));
    expect(batches[0]!.firstPage).toBe(3);
  });

  it('reads the siteinfo base URL from the part before the first page', async () => {
    let base = '';
    await batchedPages(join(fixtures, 'mini-dump.xml'), { onSiteBase: (url) => (base = url) });
    expect(base).toMatch(/^https:\/\/zh\.wikipedia\.org\/wiki\//);
  });

  it('rejects a dump cut inside a page as truncated, naming the file and what is unclosed', async () => {
    const whole = await readFile(join(fixtures, 'mini-dump.xml'), 'utf8');
    const path = join(dir, 'cut.xml');
    await writeFile(path, whole.slice(0, whole.lastIndexOf('</page>') - 20));
    const error = await batchedPages(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toMatch(/cut\.xml: the XML ends inside <mediawiki><page>.* — the file is truncated/);
  });

  it('rejects a truncated bz2 file with a DataFileError naming the file', async () => {
    const whole = await readFile(join(fixtures, 'mini-dump.xml.bz2'));
    const path = join(dir, 'truncated.xml.bz2');
    await writeFile(path, whole.subarray(0, Math.floor(whole.length * 0.7)));
    await expect(batchedPages(path)).rejects.toThrow(/truncated\.xml\.bz2: bz2 data is truncated or corrupt/);
  });
});
