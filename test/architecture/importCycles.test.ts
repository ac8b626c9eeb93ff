import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/runCli.js';

const SRC = join(REPO_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The `src/` files a file imports: static and dynamic imports, `import type`, `export … from`
 * and `import('…')` types alike (TypeScript's own pre-processor finds them), relative
 * specifiers only, `.js` mapped back to the `.ts` source.
 */
function localImports(file: string, known: Set<string>): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out = new Set<string>();
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
    for (const candidate of [target, `${target}.ts`, join(target, 'index.ts')]) {
      if (known.has(candidate)) {
        out.add(candidate);
        break;
      }
    }
  }
  return [...out];
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('the import graph of src/', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('sees type-only imports, re-exports and dynamic imports', () => {
    const { importedFiles } = ts.preProcessFile(
      "import type { A } from './a.js';\nexport { B } from './b.js';\nconst c = await import('./c.js');\ntype D = import('./d.js').D;",
      true,
      true,
    );
    expect(importedFiles.map((f) => f.fileName).sort()).toEqual(['./a.js', './b.js', './c.js', './d.js']);
  });

  it('has no cycles: data flows one way between modules', () => {
    const files = sourceFiles(SRC);
    const known = new Set(files);
    const graph = new Map(files.map((file) => [file, localImports(file, known)]));
    const cycles = importCycles(graph).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' ↔ '));
    expect(cycles).toEqual([]);
  });
});
