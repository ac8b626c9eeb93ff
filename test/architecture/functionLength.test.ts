import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Every function in src/ is short enough to read in one screen or two (docs/development.md, "Function length"). */
const MAX_LINES = 120;
const ROOT = 'src';

export interface LongFunction {
  name: string;
  line: number;
  lines: number;
}

const isFunctionLike = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function, method and arrow in `text` whose body spans more than `max` lines, nested ones included. */
export function longFunctions(fileName: string, text: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > max) found.push({ name: nameOf(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(folder, file))
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'));
}

describe('function length', () => {
  it('finds a function longer than the limit, nested arrows and methods included (the check can fail)', () => {
    const body = Array.from({ length: 5 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const text = `export function outer() {\n  const inner = () => {\n${body}\n  };\n  return inner;\n}\nclass A {\n  m() {\n${body}\n  }\n}\n`;
    expect(longFunctions('a.ts', text, 6)).toEqual([
      { name: 'outer', line: 1, lines: 10 },
      { name: 'inner', line: 2, lines: 7 },
      { name: 'm', line: 12, lines: 7 },
    ]);
    expect(longFunctions('a.ts', text, 10)).toEqual([]);
  });

  it(`keeps every function in ${ROOT}/ (.ts and .tsx) at most ${MAX_LINES} lines`, () => {
    const files = sourceFiles(ROOT);
    // The walk itself is checked: it reaches every folder, the browser client's .tsx pages included.
    expect(files).toContain(path.join('src', 'corpus', 'build.ts'));
    expect(files.some((file) => file.endsWith('.tsx'))).toBe(true);
    const over = files.flatMap((file) =>
      longFunctions(file, readFileSync(file, 'utf8')).map((f) => `${file}:${f.line} ${f.name} (${f.lines} lines)`),
    );
    expect(over).toEqual([]);
  });
});
