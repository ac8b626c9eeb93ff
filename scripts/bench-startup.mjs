#!/usr/bin/env node
// Start-up of the CLI, side by side with Node's own start: each round runs every command once, in
// turn, so that a busy machine slows them alike; prints the median and the range of each.
//   node scripts/bench-startup.mjs [--rounds 10] [--baseline <another checkout>]
// "first line": `hisrag run experiments/demo.yaml` until its first line of output, then stopped
// with Ctrl-C (its run directory goes to a temporary folder); "config checked": the same until its
// second line (the config validated against every registered component). "sources": the same CLI
// forced onto the TypeScript sources (tsx), as before dist/. "--dry-run": the demo's plan printed, to exit;
// `prepare --dry-run`, `power --sd 20` and `schema` likewise (checking and planning without a model).
// --baseline: the same of another checkout (e.g. one before this change), on this checkout's demo.
// --only <regex>: the cases whose names match (`--only 'dry-run|node'`). Cases timed to exit also get
// their median CPU time (user + sys, GNU time's), which a busy machine stretches less than wall time.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '10' }, baseline: { type: 'string' }, only: { type: 'string' } } });
const rounds = Number(values.rounds);
const root = join(import.meta.dirname, '..');
const cli = join(root, 'bin', 'hisrag.mjs');
const out = mkdtempSync(join(tmpdir(), 'hisrag-bench-startup-'));

const GNU_TIME = '/usr/bin/time';
const cpuFile = join(out, 'cpu.txt');
/** CPU seconds (user + sys) of each case timed to exit, by case name. */
const cpu = new Map();

/** Milliseconds from spawn to exit, or to the `lines`-th line of output, after which it is interrupted. */
function time(args, { env = {}, lines = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // To exit: under GNU time for its CPU figure (an interrupted child would get no signal through it).
    const timed = lines === 0 && existsSync(GNU_TIME);
    const [command, argv] = timed ? [GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args]] : [process.execPath, args];
    const child = spawn(command, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    child.on('close', () => {
      const wall = took ?? performance.now() - started;
      resolve(timed ? { wall, cpu: readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).reduce((a, b) => a + Number(b), 0) } : { wall });
    });
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
/** Commands that check or plan a config and call no model: this checkout's, then the baseline's on this checkout's demo (its artefacts already prepared here). */
const PLANNING = [
  ['run --dry-run', ['run', 'experiments/demo.yaml', '--dry-run']],
  ['prepare --dry-run', ['prepare', 'experiments/demo.yaml', '--dry-run']],
  ['power --sd 20', ['power', 'experiments/demo.yaml', '--sd', '20']],
  ['schema', ['schema']],
];
for (const [name, args] of PLANNING.slice(1)) cases.push([`hisrag ${name}`, () => time([cli, ...args])]);
if (values.baseline) {
  cases.push([`--help of ${values.baseline}`, () => time([join(values.baseline, 'bin', 'hisrag.mjs'), '--help'])]);
  for (const [name, args] of PLANNING) cases.push([`${name} of ${values.baseline}`, () => time([join(values.baseline, 'bin', 'hisrag.mjs'), ...args])]);
}
if (values.only) cases.splice(0, cases.length, ...cases.filter(([name]) => new RegExp(values.only).test(name)));

await time([cli, 'run', 'experiments/demo.yaml', '--dry-run']); // warms the file cache (not measured)
const times = new Map(cases.map(([name]) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of cases) {
    const took = await run();
    times.get(name).push(took.wall);
    if (took.cpu !== undefined) cpu.set(name, [...(cpu.get(name) ?? []), took.cpu]);
  }
}
rmSync(out, { recursive: true, force: true });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
for (const [name, xs] of times) {
  const cpuMedian = cpu.has(name) ? `, CPU median ${median(cpu.get(name)).toFixed(2)} s` : '';
  console.log(`${name.padEnd(34)} median ${(median(xs) / 1000).toFixed(3)} s  (${(Math.min(...xs) / 1000).toFixed(3)}–${(Math.max(...xs) / 1000).toFixed(3)} s, ${xs.length} runs${cpuMedian})`);
}
