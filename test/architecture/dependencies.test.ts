import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/runCli.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|tsx|mjs|js)$/.test(path) ? [path] : [];
  });
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** Packages the shipped code names: imports of every kind, plus `require.resolve('pkg')` (the tsx loader of worker processes). */
function importedPackages(): Set<string> {
  const out = new Set<string>();
  for (const file of ['src', 'bin', 'scripts'].flatMap((dir) => files(join(REPO_ROOT, dir)))) {
    const text = readFileSync(file, 'utf8');
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.') && !fileName.startsWith('node:')) out.add(packageOf(fileName));
    }
    for (const match of text.matchAll(/\.resolve\(\s*['"]([^'"./][^'"]*)['"]/g)) out.add(packageOf(match[1]!));
  }
  return out;
}

describe('package.json', () => {
  it('lists no dependency that no source file imports', () => {
    const { dependencies } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const imported = importedPackages();
    expect(Object.keys(dependencies).filter((name) => !imported.has(name))).toEqual([]);
  });
});
