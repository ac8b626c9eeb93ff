import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeFindings, FOLDER_ORDER_DOC, folderFindings, folderOrder, srcFolderFindings, type FolderEdges } from './importGraph.js';

const edgesOf = (list: [string, string, string][]): FolderEdges => {
  const edges: FolderEdges = new Map();
  for (const [from, to, file] of list) {
    const targets = edges.get(from) ?? new Map<string, string[]>();
    edges.set(from, targets);
    targets.set(to, [...(targets.get(to) ?? []), file]);
  }
  return edges;
};

const ORDER = `# Page

## Folder order

Lowest first.

1. \`errors.ts\`, \`io/\` — foundations (\`errors.ts\` holds \`formatZodIssues\`)
2. \`experiment/\` — the engine
3. \`report/\`
4. \`cli/\`, \`library.ts\`

## Next section

5. \`notInTheOrder/\`
`;

describe('the documented folder order', () => {
  it('reads one layer per numbered line of its section, names before the dash only', () => {
    expect([...folderOrder(ORDER)]).toEqual([
      ['errors.ts', 1],
      ['io/', 1],
      ['experiment/', 2],
      ['report/', 3],
      ['cli/', 4],
      ['library.ts', 4],
    ]);
  });

  it('is declared in docs/development.md and places the engine below the use cases', () => {
    const layers = folderOrder(readFileSync(FOLDER_ORDER_DOC, 'utf8'));
    expect(layers.get('errors.ts')).toBe(1);
    expect(layers.get('experiment/')!).toBeLessThan(layers.get('report/')!);
    expect(layers.get('report/')!).toBeLessThan(layers.get('app/')!);
    expect(layers.get('app/')!).toBeLessThan(layers.get('cli/')!);
    // One chart grammar under every surface that draws: the report and the viewer import figures/, never the reverse.
    expect(layers.get('runFiles/')!).toBeLessThan(layers.get('figures/')!);
    expect(layers.get('figures/')!).toBeLessThan(layers.get('report/')!);
    expect(layers.get('figures/')!).toBeLessThan(layers.get('viewer/')!);
  });

  it('finds imports against the order, cycles and folders it does not place (the check can fail)', () => {
    const edges = edgesOf([
      ['experiment/', 'report/', 'experiment/runner.ts'],
      ['report/', 'experiment/', 'report/html.ts'],
      ['cli/', 'experiment/', 'cli/main.ts'],
      ['io/', 'errors.ts', 'io/atomicWrite.ts'],
      ['library.ts', 'cli/', 'library.ts'],
    ]);
    const findings = folderFindings(edges, folderOrder(ORDER), ['experiment/', 'report/', 'cli/', 'io/', 'errors.ts', 'library.ts', 'stray/']);
    expect(findings.cycles).toEqual([['experiment/', 'report/']]);
    expect(findings.againstOrder).toEqual(['experiment/ → report/ (layer 2 imports layer 3: experiment/runner.ts)']);
    expect(findings.unplaced).toEqual(['stray/']);
    expect(describeFindings(findings)[0]).toBe('1 folder-level cycles, 1 folder imports against the order, 1 folders not in the order');
  });

  it('src/ has no folder-level cycle and no import against the order', () => {
    const findings = srcFolderFindings();
    // The whole list in the failure message: `node --import tsx test/architecture/importGraph.ts` prints it too.
    expect(describeFindings(findings)).toEqual(['0 folder-level cycles, 0 folder imports against the order, 0 folders not in the order']);
  });
});
