import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataFileError } from '../../../src/errors.js';
import { readDumpPages } from '../../../src/corpus/wikipedia/dumpPages.js';
import type { DumpPage } from '../../../src/corpus/wikipedia/dumpXml.js';
import { findNativeBzip2, type Bz2DecoderChoice } from '../../../src/corpus/wikipedia/bz2Decoder.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-dump-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(path: string, onSiteBase?: (url: string) => void, bz2Decoder: Bz2DecoderChoice = 'js'): Promise<DumpPage[]> {
  const pages: DumpPage[] = [];
  for await (const page of readDumpPages(path, { onSiteBase, bz2Decoder })) pages.push(page);
  return pages;
}

describe('readDumpPages', () => {
  it('streams every page of an .xml dump with namespace, page id, title and redirect flag', async () => {
    let base = '';
    const pages = await collect(join(fixtures, 'mini-dump.xml'), (url) => (base = url));
    expect(pages.map((p) => [p.ns, p.id, p.title, p.redirect])).toEqual([
      [0, '101', '科舉', false],
      [0, '102', '科举制', true],
      [1, '103', 'Talk:科舉', false],
      [0, '104', '進士 (消歧義)', false],
      [0, '105', '殿試', false],
      [0, '106', '鄉試', false],
    ]);
    expect(pages[0]!.text).toContain("'''科舉'''是中國古代");
    expect(pages[0]!.text).toContain('<ref>'); // entities decoded
    expect(base).toBe('https://zh.wikipedia.org/wiki/Wikipedia:首页');
  });

  it('rejects malformed XML with the file and line', async () => {
    const path = join(dir, 'bad.xml');
    await writeFile(path, '<mediawiki>\n<page><title>甲</title>\n<ns>0</nsx>\n</page></mediawiki>');
    const error = await collect(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toMatch(/bad\.xml: malformed XML: .*XML line 3|bad\.xml: malformed XML/);
  });
});

// Both decoders: unbzip2-stream (always) and the native bzip2 program (where installed).
const native = findNativeBzip2();
if (!native) console.log('note: no native bzip2 on PATH; testing the unbzip2-stream decoder only');
const decoders: Bz2DecoderChoice[] = native ? ['js', 'system'] : ['js'];
describe.each(decoders)('readDumpPages with the %s bz2 decoder', (decoder) => {
  it('reads a .bz2 dump to the same pages', async () => {
    expect(await collect(join(fixtures, 'mini-dump.xml.bz2'), undefined, decoder)).toEqual(await collect(join(fixtures, 'mini-dump.xml')));
  });

  it('reads a multistream .bz2 dump (concatenated bz2 streams) to the same pages', async () => {
    expect(await collect(join(fixtures, 'mini-dump-multistream.xml.bz2'), undefined, decoder)).toEqual(await collect(join(fixtures, 'mini-dump.xml')));
  });

  it('rejects a truncated bz2 file with a DataFileError naming the file', async () => {
    const whole = await readFile(join(fixtures, 'mini-dump.xml.bz2'));
    const path = join(dir, `truncated-${decoder}.xml.bz2`);
    await writeFile(path, whole.subarray(0, Math.floor(whole.length * 0.7)));
    const error = await collect(path, undefined, decoder).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toMatch(/truncated-\w+\.xml\.bz2: bz2 data is truncated or corrupt/);
  });

  it('rejects a multistream dump cut between two streams as truncated XML', async () => {
    const whole = await readFile(join(fixtures, 'mini-dump-multistream.xml.bz2'));
    // The first stream ends at the second "BZh9" magic.
    const second = whole.indexOf(Buffer.from('BZh9'), 4);
    const path = join(dir, `cut-${decoder}.xml.bz2`);
    await writeFile(path, whole.subarray(0, second));
    await expect(collect(path, undefined, decoder)).rejects.toThrow(/cut-\w+\.xml\.bz2: the XML ends inside <mediawiki> — the file is truncated/);
  });
});
