import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../../../src/corpus/build.js';
import { readChunks } from '../../../src/corpus/read.js';
import type { Chunk } from '../../../src/chunking/types.js';

// A local stand-in for zh.wikipedia.org/w/api.php, answering the requests wikijs makes with the
// response shapes of the real MediaWiki Action API (query+info/pageprops, extracts, search, categorymembers).
interface FakePage {
  pageid: number;
  title: string;
  extract: string;
  disambiguation?: boolean;
}
const pages: FakePage[] = [
  { pageid: 101, title: '科舉', extract: '科舉是中國古代選拔官員的制度。\n\n== 歷史 ==\n始於隋朝。\n\n=== 明清 ===\n以八股取士。\n\n== 參見 ==\n進士' },
  { pageid: 105, title: '殿試', extract: '殿試由皇帝主持。' },
  { pageid: 107, title: '狀元', extract: '狀元是殿試第一名。' },
  { pageid: 104, title: '進士 (消歧義)', extract: '進士可以指：', disambiguation: true },
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
let failuresLeft = 0;

function answer(q: URLSearchParams): unknown {
  if (q.get('list') === 'search') {
    const hits = pages.filter((p) => p.extract.includes(q.get('srsearch')!) || p.title.includes(q.get('srsearch')!));
    return {
      batchcomplete: '',
      continue: { sroffset: hits.length, continue: '-||' },
      query: { searchinfo: { totalhits: hits.length }, search: hits.map((p) => ({ ns: 0, title: p.title, pageid: p.pageid, size: 100, wordcount: 10, snippet: '', timestamp: '2024-01-01T00:00:00Z' })) },
    };
  }
  if (q.get('list') === 'categorymembers') {
    const members = categories[q.get('cmtitle')!] ?? [];
    // Two members per answer, with MediaWiki's continuation token.
    const start = Number(q.get('cmcontinue')?.split('|')[1] ?? 0);
    const slice = members.slice(start, start + 2);
    const toMember = (title: string) => ({ pageid: 1, ns: title.startsWith('Category:') ? 14 : title.startsWith('Template:') ? 10 : 0, title });
    return {
      batchcomplete: '',
      ...(start + 2 < members.length ? { continue: { cmcontinue: `page|${start + 2}|0`, continue: '-||' } } : {}),
      query: { categorymembers: slice.map(toMember) },
    };
  }
  if (q.get('prop') === 'extracts') {
    const page = pages.find((p) => String(p.pageid) === q.get('pageids'))!;
    return { batchcomplete: '', query: { pages: { [page.pageid]: { pageid: page.pageid, ns: 0, title: page.title, extract: page.extract } } } };
  }
  if (q.get('prop') === 'info|pageprops') {
    const asked = q.get('titles')!;
    const target = redirects[asked] ?? asked;
    const page = pages.find((p) => p.title === target);
    const redirectList = redirects[asked] ? { redirects: [{ from: asked, to: target }] } : {};
    if (!page) return { batchcomplete: '', query: { pages: { '-1': { ns: 0, title: asked, missing: '' } } } };
    const url = `https://zh.wikipedia.org/wiki/${encodeURIComponent(page.title)}`;
    return {
      batchcomplete: '',
      query: {
        ...redirectList,
        pages: {
          [page.pageid]: {
            pageid: page.pageid, ns: 0, title: page.title, contentmodel: 'wikitext', pagelanguage: 'zh', lastrevid: 1, length: 100,
            ...(page.disambiguation ? { pageprops: { disambiguation: '' } } : {}),
            fullurl: url, editurl: `${url}?action=edit`, canonicalurl: url,
          },
        },
      },
    };
  }
  return { error: { code: 'badvalue', info: `unexpected request ${q.toString()}` } };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const q = new URL(req.url!, 'http://127.0.0.1').searchParams;
    requests.push(q);
    userAgents.add(String(req.headers['user-agent']));
    if (failuresLeft > 0) {
      failuresLeft--;
      res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer(q)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  apiUrl = `http://127.0.0.1:${address.port}/w/api.php`;
});
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-mw-'));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function build(name: string, params: Record<string, unknown>) {
  const out = join(dir, name);
  const manifest = await buildCorpus({ name, builder: { name: 'mediawiki-api', apiUrl, minIntervalMs: 0, ...params }, out, chunking: { maxSize: 100 } });
  const chunks: Chunk[] = [];
  for await (const chunk of readChunks(out)) chunks.push(chunk);
  return { manifest, chunks };
}

describe('mediawiki-api builder', () => {
  it('builds chunks for given titles with sections, URL and simplified text', async () => {
    const { chunks, manifest } = await build('titles', { titles: ['科舉', '不存在的頁面'] });
    expect(chunks.map((c) => [c.id, c.text, c.meta.section])).toEqual([
      ['titles:101:0', '科举是中国古代选拔官员的制度。', undefined],
      ['titles:101:1', '始于隋朝。', '历史'],
      ['titles:101:2', '以八股取士。', '历史 > 明清'],
    ]);
    expect(chunks[0]!.meta).toMatchObject({ pageId: '101', url: 'https://zh.wikipedia.org/wiki/%E7%A7%91%E8%88%89', originalTitle: '科舉' });
    expect(manifest.counts.documentsSkipped).toEqual({ missing: 1 });
    expect(manifest.source.path).toBe(apiUrl);
    expect(userAgents.has('hisrag/0.1 (corpus builder for research; https://github.com/)')).toBe(true);
  });

  it('follows redirects to the target page', async () => {
    const { chunks } = await build('redirect', { titles: ['科举制'] });
    expect(chunks[0]!.docId).toBe('101');
  });

  it('builds from search results and skips disambiguation pages', async () => {
    const { chunks, manifest } = await build('search', { search: { query: '殿試' } });
    expect([...new Set(chunks.map((c) => c.title))]).toEqual(['殿试', '状元']);
    const dab = await build('search-dab', { search: { query: '進士' } });
    expect(dab.manifest.counts.documentsSkipped).toEqual({ disambiguation: 1 });
    expect(manifest.counts.documentsRead).toBe(2);
  });

  it('crawls a category down to the depth limit, following continuation and skipping other namespaces', async () => {
    const one = await build('cat1', { categories: [{ name: '科举', depth: 1 }] });
    expect([...new Set(one.chunks.map((c) => c.title))]).toEqual(['科举', '殿试']);
    expect(one.manifest.counts.documentsSkipped).toEqual({ namespace: 1 });
    const two = await build('cat2', { categories: [{ name: 'Category:科举', depth: 2 }] });
    expect([...new Set(two.chunks.map((c) => c.title))]).toEqual(['科举', '殿试', '状元']);
    expect(requests.some((q) => q.get('cmcontinue') === 'page|2|0')).toBe(true);
  });

  it('retries a call that fails with 503', async () => {
    failuresLeft = 2;
    const { chunks } = await build('retry', { titles: ['殿試'], retries: 3 });
    expect(chunks.map((c) => c.text)).toEqual(['殿试由皇帝主持。']);
  });

  it('gives up after the configured retries', async () => {
    failuresLeft = 5;
    await expect(build('giveup', { titles: ['殿試'], retries: 1 })).rejects.toThrow(/503/);
    failuresLeft = 0;
  });

  it('requires titles, a search or categories', async () => {
    await expect(build('none', {})).rejects.toThrow(/builder\.titles: give titles, search or categories/);
  });
});
