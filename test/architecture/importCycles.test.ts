import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, SRC } from './importGraph.js';

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
    const cycles = importCycles(importGraph()).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' ↔ '));
    expect(cycles).toEqual([]);
  });
});
