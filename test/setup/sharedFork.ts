import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, vi } from 'vitest';

// The suite runs with `isolate: false`: a fork runs many test files in one module graph and one
// process, so what a file changes in the process must leave with it — its spies on stdout/stderr,
// the environment variables it set, an exit code an in-process CLI call left behind.
const environment = { ...process.env };

afterAll(() => {
  vi.restoreAllMocks();
  for (const key of Object.keys(process.env)) if (!(key in environment)) delete process.env[key];
  Object.assign(process.env, environment);
  process.exitCode = undefined;
});

// HISRAG_TEST_CPU_LOG=<file>: one line per test file with the CPU seconds it cost, its own and its
// finished child processes' (the CLI runs, servers, Chromium) — how the slow files are found
// (docs/development.md): wall time on a shared machine says little about what a file costs.
const cpuLog = process.env.HISRAG_TEST_CPU_LOG;
if (cpuLog) {
  /** utime + stime + cutime + cstime of this process, in seconds (proc(5): fields 14–17, in clock ticks). */
  const cpuSeconds = () => {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  };
  // This file runs before each test file is collected: its imports are counted with it.
  const startedCpu = cpuSeconds();
  const startedWall = performance.now();
  afterAll((file) => {
    appendFileSync(cpuLog, `${(cpuSeconds() - startedCpu).toFixed(2)}\t${((performance.now() - startedWall) / 1000).toFixed(2)}\t${'filepath' in file ? file.filepath : file.name}\n`);
  });
}
