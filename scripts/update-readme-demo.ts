/**
 * Rewrites the README's demo table (between `<!-- demo-output:start -->` and
 * `<!-- demo-output:end -->`) from a fresh run of the demo — what `npm run demo` prints:
 *
 *   node --import tsx scripts/update-readme-demo.ts
 *
 * The run writes where `npm run demo` does (models/, corpora/, indexes/, experiments/runs/).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { demoTableIn, readmeDemoTable, withDemoTable } from './readmeDemoBlock.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const demo = spawnSync(process.execPath, ['bin/hisrag.mjs', 'run', 'experiments/demo.yaml', '--no-progress'], { cwd: root, encoding: 'utf8' });
if (demo.status !== 0) {
  process.stderr.write(demo.stdout + demo.stderr);
  throw new Error(`the demo exited ${demo.status}`);
}
const table = demoTableIn(demo.stdout);
const readmePath = `${root}README.md`;
const readme = readFileSync(readmePath, 'utf8');
if (readmeDemoTable(readme) === table) {
  process.stdout.write('README.md: the demo table is up to date\n');
} else {
  writeFileSync(readmePath, withDemoTable(readme, table));
  process.stdout.write(`README.md: demo table rewritten\n${table}\n`);
}
