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
