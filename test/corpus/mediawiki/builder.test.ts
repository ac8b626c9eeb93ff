import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildCorpus } from '../../../src/corpus/build.js';
import { type Chunk, readChunks } from '../../../src/runFiles/corpusFiles.js';

// A local stand-in for a MediaWiki api.php, answering with the shapes of the real Action API
// (formatversion=2, errorformat=plaintext): revisions with slots, normalized titles, redirects,
// search and categorymembers with `continue`. test/corpus/mediawiki/realWiki.test.ts checks the
// same builder against a real MediaWiki.
interface FakePage {
  pageid: number;
  title: string;
  ns?: number;
  wikitext: string;
  disambiguationProp?: boolean;
}
const pages: FakePage[] = [
  { pageid: 101, title: '科舉', wikitext: "{{Infobox 制度\n| 名稱 = 科舉\n}}\n'''科舉'''是中國古代選拔官員的制度。<ref>{{cite book|title=宋史}}</ref>\n\n== 歷史 ==\n始於[[隋朝]]。\n\n=== 明清 ===\n以八股取士。<references group=\"注\" />\n\n== 參見 ==\n* [[進士]]\n[[分類:科舉]]" },
  { pageid: 105, title: '殿試', wikitext: '殿試由[[皇帝]]主持。' },
  { pageid: 107, title: '狀元', wikitext: '狀元是殿試第一名。' },
  { pageid: 104, title: '進士 (消歧義)', wikitext: "'''進士'''可以指：\n* [[進士 (科舉)]]\n{{消歧義}}" },
  { pageid: 108, title: '舉人 (消歧義)', wikitext: "'''舉人'''可以指：\n* [[舉人 (科舉)]]", disambiguationProp: true },
  { pageid: 109, title: '模板頁', wikitext: '{{Navbox\n| list = [[甲]]\n}}' },
  { pageid: 110, title: 'Template:科举', ns: 10, wikitext: '{{Navbox}}' },
];
const redirects: Record<string, string> = { 科举制: '科舉' };
const categories: Record<string, string[]> = {
  'Category:科举': ['科舉', 'Category:进士', 'Template:科举'],
  'Category:进士': ['殿試', 'Category:状元', 'Category:科举'],
  'Category:状元': ['狀元'],
};

let server: Server;
let apiUrl = '';
const requests: URLSearchParams[] = [];
const userAgents = new Set<string>();
/** Answers queued ahead of the normal ones (status, headers, body). */
let scripted: { status: number; headers?: Record<string, string>; body: unknown }[] = [];
let extraWarning: unknown;

const ok = (body: Record<string, unknown>) => ({ ...(extraWarning ? { warnings: [extraWarning] } : {}), batchcomplete: true, ...body });

function answer(q: URLSearchParams): unknown {
  if (q.get('list') === 'search') {
    const term = q.get('srsearch')!;
    const hits = pages.filter((p) => (p.ns ?? 0) === 0 && (p.wikitext.includes(term) || p.title.includes(term)));
    const offset = Number(q.get('sroffset') ?? 0);
    const limit = Number(q.get('srlimit'));
    const slice = hits.slice(offset, offset + Math.min(limit, 1)); // one hit per answer: continuation is exercised
    return ok({
      ...(offset + 1 < hits.length ? { continue: { sroffset: offset + 1, continue: '-||' } } : {}),
      query: { searchinfo: { totalhits: hits.length }, search: slice.map((p) => ({ ns: 0, title: p.title, pageid: p.pageid })) },
    });
  }
  if (q.get('list') === 'categorymembers') {
    const members = categories[q.get('cmtitle')!] ?? [];
    const start = Number(q.get('cmcontinue')?.split('|')[1] ?? 0);
    const slice = members.slice(start, start + 2);
    const toMember = (title: string) => ({ pageid: 1, ns: title.startsWith('Category:') ? 14 : title.startsWith('Template:') ? 10 : 0, title });
    return ok({
      ...(start + 2 < members.length ? { continue: { cmcontinue: `page|${start + 2}|0`, continue: '-||' } } : {}),
      query: { categorymembers: slice.map(toMember) },
    });
  }
  if (q.get('prop')?.startsWith('extracts')) {
    return { warnings: [{ code: 'unrecognizedvalues', module: 'query', text: 'Unrecognized value for parameter "prop": extracts.' }], batchcomplete: true, query: { pages: [] } };
  }
  if (q.get('prop')?.startsWith('revisions')) {
    const asked = q.get('titles')!.split('|');
    const normalized = asked.filter((t) => t.includes('_')).map((t) => ({ from: t, to: t.replaceAll('_', ' ') }));
    const names = asked.map((t) => t.replaceAll('_', ' '));
    const redirectList = names.filter((t) => redirects[t]).map((t) => ({ from: t, to: redirects[t]! }));
    const targets = [...new Set(names.map((t) => redirects[t] ?? t))];
    // Content of the second page and on comes in a continued answer (as when content is large).
    const continued = q.get('rvcontinue') !== null;
    const result = targets.map((title, i) => {
      const page = pages.find((p) => p.title === title);
      if (!page) return { ns: 0, title, missing: true };
      const url = `https://zh.wikipedia.org/wiki/${encodeURIComponent(page.title)}`;
      const withContent = continued ? i > 0 : i === 0;
      return {
        pageid: page.pageid, ns: page.ns ?? 0, title: page.title, contentmodel: 'wikitext', fullurl: url, canonicalurl: url,
        ...(page.disambiguationProp ? { pageprops: { disambiguation: '' } } : {}),
        ...(withContent ? { revisions: [{ slots: { main: { contentmodel: 'wikitext', contentformat: 'text/x-wiki', content: page.wikitext } } }] } : {}),
      };
    });
    return ok({
      ...(!continued && targets.length > 1 ? { continue: { rvcontinue: '1|2', continue: '||' } } : {}),
      query: { ...(normalized.length ? { normalized } : {}), ...(redirectList.length ? { redirects: redirectList } : {}), pages: result },
    });
  }
  return { errors: [{ code: 'badvalue', text: `unexpected request ${q.toString()}` }] };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-mw-'));
  server = createServer((req, res) => {
    const q = new URL(req.url!, 'http://127.0.0.1').searchParams;
    requests.push(q);
    userAgents.add(String(req.headers['user-agent']));
    const next = scripted.shift();
    if (next) {
      res.writeHead(next.status, { 'content-type': 'application/json; charset=utf-8', ...next.headers }).end(JSON.stringify(next.body));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer(q)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/w/api.php`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  scripted = [];
  extraWarning = undefined;
  requests.length = 0;
});

async function build(name: string, params: Record<string, unknown>) {
  const out = join(dir, name);
  const manifest = await buildCorpus({ name, builder: { name: 'mediawiki-api', apiUrl, minIntervalMs: 0, ...params }, out, chunking: { maxSize: 100 } });
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  return { manifest, chunks };
}

describe('mediawiki-api builder', () => {
  it('reads wikitext for given titles into clean, sectioned, simplified chunks', async () => {
    const { chunks, manifest } = await build('titles', { titles: ['科舉', '不存在的頁面'] });
    expect(chunks.map((c) => [c.id, c.text, c.meta.section])).toEqual([
      ['titles:101:0', '科举是中国古代选拔官员的制度。', undefined],
      ['titles:101:1', '始于隋朝。', '历史'],
      ['titles:101:2', '以八股取士。', '历史 > 明清'],
    ]);
    expect(chunks[0]!.meta).toMatchObject({ pageId: '101', url: 'https://zh.wikipedia.org/wiki/%E7%A7%91%E8%88%89', originalTitle: '科舉' });
    expect(manifest.counts.documentsSkipped).toEqual({ missing: 1 });
    expect(manifest.source.path).toBe(apiUrl);
    const read = requests.find((q) => q.get('titles') === '科舉|不存在的頁面')!;
    expect(read.get('prop')).toContain('revisions');
    expect(read.get('rvprop')).toBe('content');
    expect(read.get('maxlag')).toBe('5');
    expect(read.get('formatversion')).toBe('2');
  });

  it('sends a descriptive User-Agent', async () => {
    await build('ua', { titles: ['殿試'] });
    expect([...userAgents]).toEqual([expect.stringMatching(/^hisrag\/\S+ \(.+\)$/)]);
  });

  it('merges a batch whose content comes across continued answers', async () => {
    const { chunks } = await build('batch', { titles: ['殿試', '狀元'] });
    expect(chunks.map((c) => c.text)).toEqual(['殿试由皇帝主持。', '状元是殿试第一名。']);
    expect(requests.some((q) => q.get('rvcontinue') === '1|2')).toBe(true);
  });

  it('follows normalisation and redirects to the target page, once per page', async () => {
    const { chunks, manifest } = await build('redirect', { titles: ['科举制', '科舉'] });
    expect(new Set(chunks.map((c) => c.docId))).toEqual(new Set(['101']));
    expect(manifest.counts.documentsSkipped).toEqual({ duplicate: 1 });
  });

  it('builds from search results, following continuation, and skips disambiguation pages by template and by page property', async () => {
    const { chunks, manifest } = await build('search', { search: { query: '殿試' } });
    expect([...new Set(chunks.map((c) => c.title))]).toEqual(['殿试', '状元']);
    expect(manifest.counts.documentsRead).toBe(2);
    expect(requests.some((q) => q.get('sroffset') === '1')).toBe(true);
    const dab = await build('search-dab', { titles: ['進士 (消歧義)', '舉人 (消歧義)', '殿試'] });
    expect(dab.manifest.counts.documentsSkipped).toEqual({ disambiguation: 2 });
  });

  it('crawls a category down to the depth limit, following continuation and skipping other namespaces', async () => {
    const one = await build('cat1', { categories: [{ name: '科举', depth: 1 }] });
    expect([...new Set(one.chunks.map((c) => c.title))]).toEqual(['科举', '殿试']);
    expect(one.manifest.counts.documentsSkipped).toEqual({ namespace: 1 });
    const two = await build('cat2', { categories: [{ name: 'Category:科举', depth: 2 }] });
    expect([...new Set(two.chunks.map((c) => c.title))]).toEqual(['科举', '殿试', '状元']);
    expect(requests.some((q) => q.get('cmcontinue') === 'page|2|0')).toBe(true);
  });

  it('retries 503 answers and honours Retry-After', async () => {
    scripted = [{ status: 503, body: 'busy' }, { status: 429, headers: { 'retry-after': '0' }, body: 'slow down' }];
    const { chunks } = await build('retry', { titles: ['殿試'], retries: 3 });
    expect(chunks.map((c) => c.text)).toEqual(['殿试由皇帝主持。']);
    expect(requests).toHaveLength(3);
  });

  it('waits out a maxlag error and then succeeds', async () => {
    scripted = [{ status: 200, headers: { 'retry-after': '0' }, body: { errors: [{ code: 'maxlag', text: 'Waiting for a database server: 7 seconds lagged.' }] } }];
    const { chunks } = await build('maxlag', { titles: ['殿試'] });
    expect(chunks).toHaveLength(1);
  });

  it('gives up after the configured retries, naming the answer', async () => {
    scripted = Array.from({ length: 5 }, () => ({ status: 503, body: 'busy' }));
    await expect(build('giveup', { titles: ['殿試'], retries: 1 })).rejects.toThrow(/HTTP 503.*gave up after 2 attempts/);
  });

  it('refuses a Retry-After longer than maxRetryAfterSeconds', async () => {
    scripted = [{ status: 429, headers: { 'retry-after': '3600' }, body: 'later' }];
    await expect(build('toolong', { titles: ['殿試'], maxRetryAfterSeconds: 5 })).rejects.toThrow(/asks to wait 3600 s/);
  });

  it('fails on an API error, with its code and text', async () => {
    scripted = [{ status: 200, body: { errors: [{ code: 'readapidenied', text: 'You need read permission to use this module.' }] } }];
    await expect(build('denied', { titles: ['殿試'] })).rejects.toThrow(/readapidenied: You need read permission/);
  });

  it('reports API warnings on stderr and counts them in the manifest', async () => {
    extraWarning = { code: 'deprecation', module: 'main', text: 'This parameter is deprecated.' };
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { manifest } = await build('warn', { titles: ['殿試'] });
      expect(manifest.counts.apiWarnings).toBeGreaterThan(0);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain('deprecation): This parameter is deprecated.');
    } finally {
      stderr.mockRestore();
    }
  });

  it('fails loudly when pages are found but none gives text', async () => {
    await expect(build('empty', { titles: ['模板頁'] })).rejects.toThrow(/1 page\(s\) listed for titles 模板頁, none gave any text \(skipped: empty 1\)/);
  });

  it('fails loudly when the listing finds no pages', async () => {
    await expect(build('nohits', { search: { query: '不會有結果' } })).rejects.toThrow(/listed no pages for search "不會有結果"/);
  });

  it('with source: extracts, says the wiki lacks TextExtracts when prop=extracts is unknown', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementationOnce(() => true);
    await expect(build('extracts', { titles: ['殿試'], source: 'extracts' })).rejects.toThrow(/does not know prop=extracts \(the TextExtracts extension is not installed there\)/);
  });

  it('requires titles, a search or categories', async () => {
    await expect(build('none', {})).rejects.toThrow(/builder\.titles: give titles, search or categories/);
  });
});
