import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { importLogger } from '../helpers/importLogger.js';
import { CLI, REPO_ROOT } from '../helpers/runCli.js';

/** The model runtime an embedding loads (transformers.js, onnxruntime, sharp). */
const RUNTIME = /node_modules\/(@huggingface\/transformers|onnxruntime-node|sharp)\//;

/**
 * The demo's dry run keeps its questions' query vectors in `.cache/query-vectors.sqlite` (under the
 * working directory): the plan with that cache cold, warm, or unused (--frozen before it exists) is
 * the same text, and a warm one loads no model runtime.
 */
describe('hisrag run --dry-run with the query vector cache cold, warm and unused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-dry-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cache = join(dir, '.cache', 'query-vectors.sqlite');

  /** `hisrag <args>` in `dir`; what it printed and whether it loaded the model runtime. */
  function hisrag(name: string, args: string[]): { stdout: string; runtime: boolean } {
    const log = join(dir, `${name}.imports`);
    writeFileSync(log, '');
    const result = spawnSync(process.execPath, ['--import', importLogger(log, { required: true }), CLI, ...args], { cwd: dir, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    return { stdout: result.stdout, runtime: readFileSync(log, 'utf8').split('\n').some((url) => RUNTIME.test(url)) };
  }

  it('prints the same plan each time; the warm cache loads no runtime, --frozen adds no file; other model files miss it', () => {
    const configure = (modelSeed: number) =>
      demoConfigIn(dir, (config) => {
        config.benchmark.file = join(REPO_ROOT, config.benchmark.file);
        config.prepare.corpora[0].builder.input = join(REPO_ROOT, config.prepare.corpora[0].builder.input);
        config.prepare.fixtureModel.seed = modelSeed;
      });
    const file = configure(42);
    hisrag('prepare', ['prepare', file, '--no-progress']);

    const unused = hisrag('frozen-cold', ['run', file, '--dry-run', '--frozen']);
    expect(existsSync(cache)).toBe(false);
    const cold = hisrag('cold', ['run', file, '--dry-run']);
    expect(existsSync(cache)).toBe(true);
    const warm = hisrag('warm', ['run', file, '--dry-run']);
    const frozenWarm = hisrag('frozen-warm', ['run', file, '--dry-run', '--frozen']);

    expect(cold.stdout).toMatch(/extractive-baseline +rag@100 +14 /);
    expect([cold.stdout, warm.stdout, frozenWarm.stdout]).toEqual([unused.stdout, unused.stdout, unused.stdout]);
    expect([unused.runtime, cold.runtime, warm.runtime, frozenWarm.runtime]).toEqual([true, true, false, false]);

    // Another fixture model (another seed), the model and index rebuilt: the cache misses.
    configure(43);
    hisrag('prepare-other', ['prepare', file, '--no-progress']);
    expect(hisrag('other-model', ['run', file, '--dry-run']).runtime).toBe(true);
  }, 180_000);
});
