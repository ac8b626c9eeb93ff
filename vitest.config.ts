import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Compiles src/ to dist/ when stale: the tests that spawn the CLI run the compiled code.
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Native addons (onnxruntime, hnswlib, sqlite) are safest in forked processes.
    pool: 'forks',
    // vitest's default is one fork fewer than the cores: a single worker on a 2-core machine, while
    // most tests wait on a child process, a server or the disk. Two forks keep both cores busy.
    // `isolate: false` (one module graph per fork) saves ~95 s of collection but lets a file's
    // state reach the next one (test files register components into the shared registries).
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
