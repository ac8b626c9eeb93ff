import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/runCli.js';

const SRC = join(REPO_ROOT, 'src');

/**
 * The stages below `config/`, lowest first (docs/development.md): a file in one of them imports
 * only its own folder and those listed before it (type-only imports included).
 */
const LOWER_ORDER = [
  ['errors', 'version', 'text', 'io', 'progress'],
  ['statistics'],
  ['registry'],
  ['models'],
  ['chunking'],
  ['corpus'],
  ['endpoints'],
  ['embedding'],
  ['index'],
  ['retrieval'],
  ['benchmarks'],
  ['prompting'],
  ['generation'],
  ['batch'],
  ['scoring'],
  ['rerank'],
  ['methods'],
];
const LEVEL = new Map(LOWER_ORDER.flatMap((folders, level) => folders.map((folder) => [folder, level] as const)));
const ABOVE_ALL = LOWER_ORDER.length;

// The offline batch command orchestrates a run; it moves up to the use cases (app/), out of batch/.
const MOVING_UP = new Set(['batch/offlineBatch.ts']);

/** `generation` for `src/generation/openai.ts`, `registry` for `src/registry.ts`. */
const folderOf = (file: string) => relative(SRC, file).split('/')[0]!.replace(/\.(js|ts)$/, '');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** `from → to` for each import of a lower stage's file that reaches a folder above its own. */
export function upwardImports(files: { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const level = LEVEL.get(folderOf(path));
    if (level === undefined) continue;
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(path), fileName);
      if (!target.startsWith(SRC)) continue;
      if ((LEVEL.get(folderOf(target)) ?? ABOVE_ALL) > level) out.push(`${relative(SRC, path)} → ${relative(SRC, target)}`);
    }
  }
  return out;
}

describe('the lower stages import only downwards', () => {
  it('finds an upward import, type-only ones included (the check can fail)', () => {
    const file = (path: string, text: string) => ({ path: join(SRC, path), text });
    expect(upwardImports([
      file('chunking/chunker.ts', "import type { SectionedDocument } from '../corpus/types.js';"),
      file('generation/openai.ts', "import { sleep } from '../endpoints/retryPolicy.js';\nimport type { Q } from '../batch/batchQueue.js';"),
      file('embedding/types.ts', "import type { PageImageRef } from '../corpus/pageImage.js';"),
    ])).toEqual(['chunking/chunker.ts → corpus/types.js', 'generation/openai.ts → batch/batchQueue.js']);
  });

  it('has none in src/', () => {
    const files = sourceFiles(SRC)
      .filter((path) => !MOVING_UP.has(relative(SRC, path)))
      .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
    expect(upwardImports(files)).toEqual([]);
  });
});
