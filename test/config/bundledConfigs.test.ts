import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { validateComponents } from '../../src/experiment/stages.js';
import { planConditions } from '../../src/experiment/plan.js';
import { REPO_ROOT } from '../helpers/runCli.js';

const dir = join(REPO_ROOT, 'experiments');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('bundled experiment configs', () => {
  it('include the demo and the seeds\' setups', () => {
    expect(files).toEqual(expect.arrayContaining(['demo.yaml', 'prohist-rag-depth.yaml', 'longhisdoc-rag-depth.yaml', 'longhisdoc-noise.yaml']));
  });

  for (const file of files) {
    it(`${file} is valid, down to every component's parameters`, async () => {
      const config = await loadExperimentConfig(join(dir, file));
      await expect(validateComponents(config)).resolves.toBeUndefined();
    });
  }

  it('the demo expands to closed-book and rag at k = 10, 20, 50, 100', async () => {
    const config = await loadExperimentConfig(join(dir, 'demo.yaml'));
    expect(planConditions(config, (spec) => ({ usesRetrieval: spec.name === 'rag' })).map((c) => c.name)).toEqual(['closed-book', 'rag@10', 'rag@20', 'rag@50', 'rag@100']);
  });

  it('a component with a bad parameter is reported with its config path', async () => {
    // One pass: the experiment schema checks every component's params as it loads the file.
    await expect(loadExperimentConfig(join(dir, 'demo.yaml'), ['retrieval.retriever.efSearch=-3'])).rejects.toThrow(/retrieval\.retriever\.efSearch/);
  });

  it('a corpus build with a bad chunking setting is reported with its config path', async () => {
    await expect(loadExperimentConfig(join(dir, 'demo.yaml'), ['prepare.corpora[0].chunking.overlap=500'])).rejects.toThrow(/prepare\.corpora\[0\]\.chunking\.overlap/);
  });

  it('never build one output path from two different inputs (each config would rebuild the other\'s artefact)', async () => {
    // out path → what builds it (corpus source or the index's corpus and kind), across every bundled config.
    const builders = new Map<string, { input: string; file: string }>();
    const claim = (out: string, input: string, file: string) => {
      const previous = builders.get(out);
      if (previous && previous.input !== input) {
        throw new Error(`${out} is built from ${previous.input} by ${previous.file} and from ${input} by ${file}`);
      }
      builders.set(out, { input, file });
    };
    for (const file of files) {
      const config = await loadExperimentConfig(join(dir, file));
      for (const corpus of config.prepare?.corpora ?? []) {
        claim(String(corpus.out ?? `corpora/${corpus.name}`), JSON.stringify([corpus.builder, corpus.chunking]), file);
      }
      for (const index of config.prepare?.indexes ?? []) {
        const { out, ...rest } = index;
        claim(out, JSON.stringify(rest), file);
      }
    }
    expect(builders.size).toBeGreaterThan(3);
  });
});
