import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The import graph of `src/`, shared by the architecture tests: files (importCycles.test.ts) and
 * folders against the documented order (folderOrder.test.ts). Run directly, it prints the folder
 * findings and their counts: `node --import tsx test/architecture/importGraph.ts`.
 */

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const SRC = join(REPO, 'src');
/** The page that declares the folder order, under its `## Folder order` heading. */
export const FOLDER_ORDER_DOC = join(REPO, 'docs', 'development.md');

export function sourceFiles(dir: string): string[] {
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
export function localImports(file: string, known: Set<string>): string[] {
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

/** Every `src/` file with the `src/` files it imports. */
export function importGraph(root = SRC): Map<string, string[]> {
  const files = sourceFiles(root);
  const known = new Set(files);
  return new Map(files.map((file) => [file, localImports(file, known)]));
}

/** Strongly connected components of more than one node (or a node importing itself), by Tarjan's algorithm. */
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

/** A file's node in the folder graph: its first folder under `src/` (`experiment/`), or the top-level file itself (`library.ts`). */
export function folderOf(file: string, root = SRC): string {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? `${parts[0]}/` : parts[0]!;
}

/** Folder → imported folder → the files (relative to `src/`) whose imports make that edge. */
export type FolderEdges = Map<string, Map<string, string[]>>;

export function folderEdges(graph: Map<string, string[]>, root = SRC): FolderEdges {
  const edges: FolderEdges = new Map();
  for (const [file, imports] of graph) {
    const from = folderOf(file, root);
    for (const target of imports) {
      const to = folderOf(target, root);
      if (to === from) continue;
      const byTarget = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, byTarget);
      const files = byTarget.get(to) ?? [];
      byTarget.set(to, files);
      const name = relative(root, file);
      if (!files.includes(name)) files.push(name);
    }
  }
  return edges;
}

/**
 * The layer of each folder (`text/`) and top-level file (`errors.ts`) in a `## Folder order` section
 * of Markdown: one numbered line per layer, lowest first, the names in backticks; names on one line
 * share a layer.
 */
export function folderOrder(markdown: string): Map<string, number> {
  const section = markdown.split(/^## Folder order\s*$/m)[1];
  if (section === undefined) throw new Error('no "## Folder order" section');
  const lines = section.split(/^## /m)[0]!.split('\n').filter((line) => /^\d+\.\s/.test(line));
  const layers = new Map<string, number>();
  lines.forEach((line, layer) => {
    // The names before the first dash; backticks after it are the description's.
    const names = line.split(' — ')[0]!.match(/`[^`]+`/g) ?? [];
    for (const name of names) layers.set(name.slice(1, -1), layer + 1);
  });
  if (layers.size === 0) throw new Error('the "## Folder order" section lists no folders');
  return layers;
}

export interface FolderFindings {
  /** Each folder-level cycle, as its folders. */
  cycles: string[][];
  /** `from → to (files)` for each folder edge that runs against the order. */
  againstOrder: string[];
  /** Folders and top-level files of `src/` that the order does not place. */
  unplaced: string[];
}

export function folderFindings(edges: FolderEdges, layers: Map<string, number>, nodes: Iterable<string>): FolderFindings {
  const graph = new Map([...edges].map(([from, targets]) => [from, [...targets.keys()]]));
  const againstOrder: string[] = [];
  for (const [from, targets] of edges) {
    for (const [to, files] of targets) {
      const a = layers.get(from);
      const b = layers.get(to);
      if (a !== undefined && b !== undefined && b > a) againstOrder.push(`${from} → ${to} (layer ${a} imports layer ${b}: ${files.join(', ')})`);
    }
  }
  const unplaced = [...new Set(nodes)].filter((node) => !layers.has(node)).sort();
  return { cycles: importCycles(graph), againstOrder: againstOrder.sort(), unplaced };
}

/** The findings for this repository's `src/` against the order in docs/development.md. */
export function srcFolderFindings(): FolderFindings {
  const graph = importGraph();
  const layers = folderOrder(readFileSync(FOLDER_ORDER_DOC, 'utf8'));
  return folderFindings(folderEdges(graph), layers, [...graph.keys()].map((file) => folderOf(file)));
}

export function describeFindings({ cycles, againstOrder, unplaced }: FolderFindings): string[] {
  return [
    `${cycles.length} folder-level cycles, ${againstOrder.length} folder imports against the order, ${unplaced.length} folders not in the order`,
    ...cycles.map((cycle) => `cycle: ${cycle.join(' ↔ ')}`),
    ...againstOrder.map((edge) => `against the order: ${edge}`),
    ...unplaced.map((node) => `not in docs/development.md's folder order: ${node}`),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${describeFindings(srcFolderFindings()).join('\n')}\n`);
}
