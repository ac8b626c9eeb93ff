import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { demoConfigIn } from '../helpers/demoConfig.js';

/** The offline demo with other strategies (and retriever), written into a temp dir. */
async function demoWith(edit: (config: any) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-method-config-'));
  const file = demoConfigIn(dir, (config) => {
    config.benchmark.limit = 2;
    config.retrieval.k = [5];
    edit(config);
  });
  return { dir, config: await loadExperimentConfig(file) };
}

describe('method configs that cannot run are refused before anything is answered', () => {
  it('refine with mode: extractive over a retriever without relevance names the strategy and the retriever', async () => {
    const { config } = await demoWith((c) => {
      c.strategies = ['closed-book', { name: 'refine', mode: 'extractive' }];
      c.retrieval.retriever = { name: 'random', index: c.retrieval.retriever.index };
    });
    const run = runExperiment({ config, runId: 'x' });
    await expect(run).rejects.toThrow(ConfigError);
    await expect(runExperiment({ config, runId: 'y' })).rejects.toThrow(/strategies\[1\]\.mode: refine with mode: extractive .* retrieval\.retrievers\[0\] \(random\) has none/);
  }, 120_000);

  it('agent with a generator that cannot call tools names the model', async () => {
    const { config } = await demoWith((c) => (c.strategies = [{ name: 'agent' }]));
    await expect(runExperiment({ config, runId: 'x' })).rejects.toThrow(/strategies\[0\]\.name: method agent .* models\[0\] \(extractive-baseline, generator extractive\) cannot call tools/);
  }, 120_000);

  it('an unknown method lists the known ones', async () => {
    // Refused as the config is read (one pass of the experiment schema), with a guess at the intended name.
    await expect(demoWith((c) => (c.strategies = ['closed-book', 'iterretgen']))).rejects.toThrow(/did you mean "iter-retgen"/);
    await expect(demoWith((c) => (c.strategies = ['closed-book', 'iterretgen']))).rejects.toThrow(/strategies\[1\]\.name: unknown strategy or method "iterretgen" .*methods: .*iter-retgen/);
  }, 120_000);
});
