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
  },
});
