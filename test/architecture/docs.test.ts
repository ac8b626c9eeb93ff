import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/runCli.js';

const DOCS = join(REPO_ROOT, 'docs');
const pages = () => [join(REPO_ROOT, 'README.md'), ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f))];

/** Markdown without its fenced code blocks and inline code (links there are examples, not links). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets of a page: `[text](target)` and `[text]: target`, external URLs left out. */
function links(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)].map((m) => m[1]!);
  const reference = [...text.matchAll(/^\[[^\]]+\]: +(\S+)/gm)].map((m) => m[1]!);
  return [...inline, ...reference].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the documentation', () => {
  it('has a README of at most 250 lines', () => {
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('keeps the reference in docs/, one page per topic, each linked from the README', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    for (const page of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) expect(readme, page).toContain(`(docs/${page}`);
  });

  it('finds an anchor GitHub would make, and a missing link target (the check can fail)', () => {
    expect(anchors('# Runs: resume, cache\n## Bad input: what the tests try\n## Bad input: what the tests try')).toEqual(
      new Set(['runs-resume-cache', 'bad-input-what-the-tests-try', 'bad-input-what-the-tests-try-1']),
    );
    expect(links('[a](docs/a.md) [b](https://x.org) `[c](no.md)` [d](#top)\n[e]: ../e.md')).toEqual(['docs/a.md', '#top', '../e.md']);
  });

  it('has no broken relative link in README.md or docs/*.md (files and #anchors)', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(page, 'utf8');
      for (const target of links(text)) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path ? join(dirname(page), decodeURIComponent(path)) : page;
        const where = `${relative(REPO_ROOT, page)}: ${target}`;
        if (!existsSync(file)) broken.push(`${where} (no such file)`);
        else if (anchor && statSync(file).isFile() && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
