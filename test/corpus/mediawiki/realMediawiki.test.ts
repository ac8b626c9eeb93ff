import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerCorpusCommands } from '../../../src/cli/commands/corpus.js';
import { buildCorpus } from '../../../src/corpus/build.js';
import { type Chunk, readChunks } from '../../../src/runFiles/corpusFiles.js';
import { mediawikiUnavailable, startLocalMediawiki, type LocalMediawiki } from './localMediawiki.js';
import { ARTICLE_TITLES, RESIDUE, ZHWIKI_PAGES, toImportXml } from './zhwikiPages.js';

// Against real MediaWiki software (Debian's `mediawiki`, SQLite, `php -S`): the API builder with and
// without TextExtracts, and the dump builder on the wiki's own `dumpBackup.php --current` output.
const unavailable = await mediawikiUnavailable();
if (unavailable) console.warn(`skipping the real-MediaWiki tests: ${unavailable}`);

// The nowiki text is literal wikitext on purpose; everything else bracket-like is residue.
const NOWIKI_TEXT = '[[不是连结]]';
function residueIn(text: string): RegExp[] {
  const checked = text.replaceAll(NOWIKI_TEXT, '');
  return RESIDUE.filter((pattern) => pattern.test(checked));
}

describe.skipIf(unavailable !== undefined)(`corpus builders against a real MediaWiki${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let wiki: LocalMediawiki;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hisrag-realwiki-'));
    wiki = await startLocalMediawiki(toImportXml(ZHWIKI_PAGES));
  }, 180_000);
  afterAll(async () => {
    await wiki?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function build(name: string, builder: { name: string } & Record<string, unknown>) {
    const out = join(dir, name);
    const manifest = await buildCorpus({ name, builder: builder.name === 'mediawiki-api' ? { minIntervalMs: 0, ...builder } : builder, out, chunking: { maxSize: 200 } });
    const chunks: Chunk[] = [];
    for await (const chunk of readChunks(out)) chunks.push(chunk);
    return { manifest, chunks };
  }
  const textByDoc = (chunks: Chunk[]) => {
    const docs: Record<string, string[]> = {};
    for (const chunk of chunks) (docs[chunk.title] ??= []).push(chunk.text);
    return docs;
  };
  const titles = [...ARTICLE_TITLES, '進士 (消歧義)', '科举制', '不存在的條目'];

  it('the API builder reads clean text from a wiki without TextExtracts', async () => {
    const { chunks, manifest } = await build('api-plain', { name: 'mediawiki-api', apiUrl: wiki.apiUrl, titles });
    expect(Object.keys(textByDoc(chunks))).toEqual(['科举', '殿试', '状元']);
    expect(manifest.counts.documentsSkipped).toEqual({ disambiguation: 1, duplicate: 1, missing: 1 });
    for (const chunk of chunks) expect(residueIn(chunk.text), chunk.text).toEqual([]);
    const all = chunks.map((c) => c.text).join('\n');
    for (const kept of ['科举是中国古代通过考试选拔官员的制度，始于隋朝。', '春风得意马蹄疾，\n一日看尽长安花。', '明清两代以八股文取士，称八股取士。[[不是连结]]为原文所有。', '清末废除科举。', '状元是殿试第一名。']) {
      expect(all).toContain(kept);
    }
    expect(chunks.map((c) => c.meta.section)).not.toContain('注释');
  });

  it('the API builder gives the same chunks on the wiki with TextExtracts', async () => {
    const plain = await build('api-plain-2', { name: 'mediawiki-api', apiUrl: wiki.apiUrl, titles });
    const withTe = await build('api-te', { name: 'mediawiki-api', apiUrl: wiki.apiUrlWithTextExtracts, titles });
    expect(withTe.chunks.map((c) => [c.docId, c.text])).toEqual(plain.chunks.map((c) => [c.docId, c.text]));
  });

  it('source: extracts reads TextExtracts where installed, and says so where it is not', async () => {
    const { chunks } = await build('api-extracts', { name: 'mediawiki-api', apiUrl: wiki.apiUrlWithTextExtracts, titles: ['科舉', '狀元'], source: 'extracts' });
    expect(chunks.map((c) => c.text).join('\n')).toContain('科举是中国古代通过考试选拔官员的制度');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await expect(build('api-extracts-plain', { name: 'mediawiki-api', apiUrl: wiki.apiUrl, titles: ['科舉'], source: 'extracts' })).rejects.toThrow(/TextExtracts extension is not installed/);
    } finally {
      stderr.mockRestore();
    }
  });

  it('crawls a category tree and follows search results', async () => {
    const crawled = await build('api-category', { name: 'mediawiki-api', apiUrl: wiki.apiUrl, categories: [{ name: '分類:科舉', depth: 1 }] });
    expect(Object.keys(textByDoc(crawled.chunks))).toEqual(['科举', '殿试', '状元']);
    const searched = await build('api-search', { name: 'mediawiki-api', apiUrl: wiki.apiUrl, search: { query: '殿試' } });
    expect(Object.keys(textByDoc(searched.chunks))).toContain('殿试');
  });

  it('the dump builder turns the wiki’s own dumpBackup.php output into chunks with no markup, equal to the API builder’s', async () => {
    const dump = await wiki.dumpCurrent();
    const everything = await build('dump-all', { name: 'wikipedia-dump', input: dump, workers: 0 });
    expect(everything.manifest.counts.documentsSkipped).toMatchObject({ disambiguation: 1, redirect: 1, namespace: 2 });
    for (const chunk of everything.chunks) expect(residueIn(chunk.text), chunk.text).toEqual([]);
    // The installer's main page is in the dump too; compare the project's articles.
    const fromDump = await build('dump', { name: 'wikipedia-dump', input: dump, workers: 0, titles: ARTICLE_TITLES });
    for (const chunk of fromDump.chunks) expect(residueIn(chunk.text), chunk.text).toEqual([]);
    const fromApi = await build('api-for-dump', { name: 'mediawiki-api', apiUrl: wiki.apiUrl, titles: ARTICLE_TITLES });
    expect(fromDump.chunks.map((c) => [c.docId, c.title, c.text, c.meta.section])).toEqual(fromApi.chunks.map((c) => [c.docId, c.title, c.text, c.meta.section]));
  });

  async function cli(out: string, ...args: string[]): Promise<Set<string>> {
    const program = new Command('hisrag').exitOverride();
    registerCorpusCommands(program);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await program.parseAsync(['node', 'hisrag', 'corpus', 'build', '--builder', 'mediawiki-api', '--api-url', wiki.apiUrl, ...args, '--out', out, '--no-progress']);
    } finally {
      stdout.mockRestore();
    }
    const titles = new Set<string>();
    for await (const chunk of readChunks(out)) titles.add(chunk.title);
    return titles;
  }

  it('hisrag corpus build --builder mediawiki-api --api-url … with --titles, --category and --search builds from the command line', async () => {
    expect(await cli(join(dir, 'cli-titles'), '--titles', '科舉,殿試')).toEqual(new Set(['科举', '殿试']));
    expect(await cli(join(dir, 'cli-category'), '--category', '分類:殿試相關:0')).toEqual(new Set(['殿试', '状元']));
    expect(await cli(join(dir, 'cli-search'), '--search', '殿試')).toContain('殿试');
  });
});
