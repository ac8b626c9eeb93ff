import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Compiles src/ to dist/ when stale: the tests that spawn the CLI run the compiled code.
    globalSetup: ['test/globalSetup.ts'],
    // What a test file changes in its process (spies, environment, exit code) is undone after it.
    setupFiles: ['test/setup/sharedFork.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Native addons (onnxruntime, hnswlib, sqlite) are safest in forked processes.
    pool: 'forks',
    // vitest's default is one fork fewer than the cores: a single worker on a 2-core machine, while
    // many tests wait on a child process, a server or the disk. Three forks keep both cores busy
    // (2026-12-07, 2 cores, quiet: two forks 481 s with the cores 83% busy, three 417 s). All three
    // from the start: with isolate: false and fewer kept (minForks 1), tinypool ends an idle fork
    // that still has files queued ("Terminating worker thread"), and those files never run.
    // `isolate: false`: one process and module graph per fork, not per file, saves ~95 s of module
    // loading. A file's changes must leave with it: test components are unregistered in afterAll,
    // and test/setup/sharedFork.ts undoes spies, environment variables and the exit code.
    poolOptions: { forks: { maxForks: 3, minForks: 3, isolate: false } },
  },
});
