/**
 * The README's demo table: the block between the demo-output markers, and the same table cut out
 * of what `npm run demo` prints. Used by `scripts/update-readme-demo.ts` (which rewrites the block)
 * and `test/experiment/readmeDemo.test.ts` (which checks it).
 */
export const DEMO_START = '<!-- demo-output:start -->';
export const DEMO_END = '<!-- demo-output:end -->';

const BLOCK = new RegExp(`${DEMO_START}\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\`\\n${DEMO_END}`);

/** The table the README shows (the fenced block between the markers). */
export function readmeDemoTable(readme: string): string {
  const match = BLOCK.exec(readme);
  if (!match) throw new Error(`README.md: no fenced block between ${DEMO_START} and ${DEMO_END}`);
  return match[1]!;
}

/** The README with its demo block replaced by `table`. */
export function withDemoTable(readme: string, table: string): string {
  readmeDemoTable(readme); // the markers must be there
  return readme.replace(BLOCK, () => `${DEMO_START}\n\`\`\`\n${table}\n\`\`\`\n${DEMO_END}`);
}

/** The summary table(s) in the demo's output: from the first `model: ` line to the end of the last model's table. */
export function demoTableIn(stdout: string): string {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith('model: '));
  if (start < 0) throw new Error('the demo printed no summary table (no line starting "model: ")');
  let end = start;
  while (end + 1 < lines.length && (lines[end + 1]!.trim() !== '' || lines[end + 2]?.startsWith('model: '))) end++;
  return lines.slice(start, end + 1).join('\n');
}
