#!/usr/bin/env node
// Start-up of the CLI, side by side with Node's own start: each round runs every command once, in
// turn, so that a busy machine slows them alike; prints the median and the range of each.
//   node scripts/bench-startup.mjs [--rounds 10] [--baseline <another checkout>]
// "first line": `hisrag run experiments/demo.yaml` until its first line of output, then stopped
// with Ctrl-C (its run directory goes to a temporary folder); "config checked": the same until its
// second line (the config validated against every registered component). "sources": the same CLI
// forced onto the TypeScript sources (tsx), as before dist/. "--dry-run": the demo's plan printed, to exit.
// --baseline: `hisrag --help` and the dry run of another checkout (e.g. one before this change).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '10' }, baseline: { type: 'string' } } });
const rounds = Number(values.rounds);
const root = join(import.meta.dirname, '..');
const cli = join(root, 'bin', 'hisrag.mjs');
const out = mkdtempSync(join(tmpdir(), 'hisrag-bench-startup-'));

/** Milliseconds from spawn to exit, or to the `lines`-th line of output, after which it is interrupted. */
function time(args, { env = {}, lines = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let took = null;
    let seen = 0;
    const onData = (chunk) => {
      seen += String(chunk).split('\n').length - 1;
      if (lines && took === null && seen >= lines) {
        took = performance.now() - started;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', () => resolve(took ?? performance.now() - started));
  });
}

const cases = [
  ['node -e ""', () => time(['-e', ''])],
  ['hisrag --help', () => time([cli, '--help'])],
  ['hisrag --help (sources, tsx)', () => time([cli, '--help'], { env: { HISRAG_FROM_SOURCE: '1' } })],
  ['hisrag run: first line', () => time([cli, 'run', 'experiments/demo.yaml', '--set', `output=${out}`, '--no-progress'], { lines: 1 })],
  ['hisrag run: config checked', () => time([cli, 'run', 'experiments/demo.yaml', '--set', `output=${out}`, '--no-progress'], { lines: 2 })],
  ['hisrag run --dry-run (to exit)', () => time([cli, 'run', 'experiments/demo.yaml', '--dry-run'])],
];
if (values.baseline) {
  cases.push([`--help of ${values.baseline}`, () => time([join(values.baseline, 'bin', 'hisrag.mjs'), '--help'])]);
  // The baseline's CLI on this checkout's demo (its artefacts already prepared here).
  cases.push([`run --dry-run of ${values.baseline}`, () => time([join(values.baseline, 'bin', 'hisrag.mjs'), 'run', 'experiments/demo.yaml', '--dry-run'])]);
}

await cases[3][1](); // warms the file cache (not measured)
const times = new Map(cases.map(([name]) => [name, []]));
for (let round = 0; round < rounds; round++) for (const [name, run] of cases) times.get(name).push(await run());
rmSync(out, { recursive: true, force: true });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
for (const [name, xs] of times) {
  console.log(`${name.padEnd(34)} median ${(median(xs) / 1000).toFixed(3)} s  (${(Math.min(...xs) / 1000).toFixed(3)}–${(Math.max(...xs) / 1000).toFixed(3)} s, ${xs.length} runs)`);
}
