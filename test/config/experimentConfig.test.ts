import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOverrides, loadExperimentConfig, validateExperimentConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';

const valid = () => ({
  name: 'demo',
  benchmark: { name: 'prohist', file: 'experiments/data/demo-prohist.json' },
  retrieval: { k: [10, 20, 50, 100], retriever: { name: 'hnsw', index: 'indexes/demo' } },
  strategies: ['closed-book', 'rag'],
  models: [{ name: 'extractive' }],
});

function errorOf(value: unknown): string {
  try {
    validateExperimentConfig(value, 'exp.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the config to be rejected');
}

describe('experiment config validation', () => {
  it('accepts a complete config and fills the documented defaults', () => {
    const config = validateExperimentConfig(valid(), 'exp.yaml');
    expect(config.seed).toBe(42);
    expect(config.output).toBe('experiments/runs');
    expect(config.scoring).toEqual({ compat: 'hisrag', textMetrics: true, bootstrapResamples: 1000, baseline: 'closed-book', versus: [], emptyAnswer: 'zero' });
    expect(config.execution.concurrency).toBe(4);
    expect(config.retrieval?.scope).toBe('corpus');
  });

  const malformed: [string, (c: any) => void, string][] = [
    ['a negative depth', (c) => (c.retrieval.k = [10, 20, -5]), 'retrieval.k[2]: expected a positive integer'],
    ['a fractional depth', (c) => (c.retrieval.k = [10.5]), 'retrieval.k[0]: expected a positive integer'],
    ['a depth given as text', (c) => (c.retrieval.k = ['ten']), 'retrieval.k[0]: expected a positive integer'],
    ['an unknown top-level key', (c) => (c.retreival = {}), 'retreival: unknown key'],
    ['an unknown key inside retrieval', (c) => (c.retrieval.depth = 3), 'retrieval.depth: unknown key'],
    ['no models', (c) => (c.models = []), 'models: expected at least one model'],
    ['a model without a name', (c) => (c.models = [{ model: 'gpt' }]), 'models[0].name: expected the name of a registered generator'],
    ['no strategies', (c) => (c.strategies = []), 'strategies: expected at least one strategy'],
    ['both benchmark and benchmarks', (c) => (c.benchmarks = [c.benchmark]), 'benchmark: unknown key beside `benchmarks`; give the list only (`benchmark` is its shorthand for a list of one)'],
    ['both retriever and retrievers', (c) => (c.retrieval.retrievers = [c.retrieval.retriever]), 'retrieval.retriever: unknown key beside `retrievers`; give the list only'],
    ['neither benchmark nor benchmarks', (c) => delete c.benchmark, 'benchmarks: '],
    ['neither retriever nor retrievers', (c) => delete c.retrieval.retriever, 'retrieval.retrievers: '],
    ['`strategy:` for `strategies:`', (c) => { c.strategy = c.strategies; delete c.strategies; }, 'strategy: unknown key; did you mean "strategies"?'],
    ['a misspelled top-level key (the guess)', (c) => (c.retreival = {}), 'retreival: unknown key; did you mean "retrieval"?'],
    ['a misspelled strategy parameter (the guess)', (c) => (c.strategies[1] = { name: 'rag', persna: 'plain' }), 'strategies[1].persna: unknown key; did you mean "persona"?'],
    ['a name with spaces', (c) => (c.name = 'my run'), 'name: expected letters, digits, ".", "_" or "-"'],
    ['an unknown compat mode', (c) => (c.scoring = { compat: 'paper' }), 'scoring.compat:'],
    ['zero concurrency', (c) => (c.execution = { concurrency: 0 }), 'execution.concurrency: expected a positive integer'],
    ['an unknown retrieval scope', (c) => (c.retrieval.scope = 'page'), 'retrieval.scope:'],
    ['an empty retriever list', (c) => { delete c.retrieval.retriever; c.retrieval.retrievers = []; }, 'retrieval.retrievers: expected at least one retriever'],
    // Components are checked by their registry's own params in the same pass.
    ['a misspelled retriever', (c) => (c.retrieval.retriever.name = 'hnws'), 'retrieval.retriever.name: unknown retriever "hnws" (known: bm25, exact, hnsw'],
    ['a misspelled retriever (the guess)', (c) => (c.retrieval.retriever.name = 'hnws'), '; did you mean "hnsw"?'],
    ['a parameter of another retriever', (c) => (c.retrieval.retriever = { name: 'bm25', index: 'x', efSearch: 3 }), 'retrieval.retriever.efSearch: unknown key'],
    ['a bad reranker parameter', (c) => (c.retrieval.retriever.rerank = { name: 'cross-encoder', candidates: 0 }), 'retrieval.retriever.rerank.candidates: expected a positive integer'],
    ['a misspelled model parameter', (c) => (c.models[0].maxChar = 3), 'models[0].maxChar: unknown key'],
    ['an unknown strategy', (c) => (c.strategies[1] = 'ragg'), 'strategies[1].name: unknown strategy or method "ragg" (strategies: '],
    ['a bad method parameter', (c) => (c.strategies[1] = { name: 'iter-retgen', rounds: 0 }), 'strategies[1].rounds:'],
    ['a judge without a name', (c) => (c.judge = { threshold: 0.5 }), 'judge.name: expected the name of a registered judge'],
    ['a bad parameter of a nested generator', (c) => (c.retrieval.retriever.rerank = { name: 'llm', generator: { name: 'openai', baseURL: 'http://127.0.0.1:1/v1', model: 'm', temperature: 9 } }), 'retrieval.retriever.rerank.generator.temperature:'],
    ['an unknown judge generator', (c) => (c.judge = { name: 'llm', generator: { name: 'opnai' } }), 'judge.generator.name: unknown generator "opnai"'],
    ['a misspelled benchmark filter', (c) => (c.benchmark.task = ['T1']), 'benchmark.task: unknown key'],
  ];
  for (const [what, mutate, message] of malformed) {
    it(`rejects ${what} with "${message}"`, () => {
      const config = valid();
      mutate(config);
      const error = errorOf(config);
      expect(error).toContain('exp.yaml: invalid experiment config');
      expect(error).toContain(message);
    });
  }

  it('keeps component specs as written (their registry fills defaults when it builds them), the grid\'s own fields as read', () => {
    const config = valid() as any;
    config.models = [{ name: 'extractive', label: 'x', price: { inputPerMillion: 1, outputPerMillion: 2 } }];
    config.strategies = ['closed-book', { name: 'ircot', maxSteps: 3, k: 5 }];
    const checked = validateExperimentConfig(config, 'exp.yaml') as any;
    expect(checked.models[0]).toEqual({ name: 'extractive', label: 'x', price: { inputPerMillion: 1, outputPerMillion: 2, batchDiscount: 0.5 } });
    expect(checked.strategies[1]).toEqual({ name: 'ircot', maxSteps: 3, k: [5] });
    expect(checked.retrieval.retrievers).toEqual([{ name: 'hnsw', index: 'indexes/demo' }]);
    expect(checked.retrieval.retriever).toBeUndefined();
    expect(validateExperimentConfig(JSON.parse(JSON.stringify(checked)), 'config.json')).toEqual(checked);
  });

  it('reads the singular shorthands as lists of one, so readers see only `benchmarks` and `retrieval.retrievers`', () => {
    const short = validateExperimentConfig(valid(), 'exp.yaml') as any;
    const { benchmark, ...rest } = valid();
    const long = validateExperimentConfig({ ...rest, benchmarks: [benchmark], retrieval: { k: [10, 20, 50, 100], retrievers: [rest.retrieval.retriever] } }, 'exp.yaml');
    expect(short).toEqual(long);
    expect(short.benchmarks).toEqual([{ name: 'prohist', file: 'experiments/data/demo-prohist.json' }]);
    expect('benchmark' in short).toBe(false);
    expect('retriever' in short.retrieval).toBe(false);
  });

  it('keeps loading the stored config.json of a run written with the shorthands (before they were normalised)', () => {
    const stored = { ...valid(), seed: 42, output: 'experiments/runs', scoring: { compat: 'hisrag', textMetrics: true, bootstrapResamples: 1000, baseline: 'closed-book', versus: [], emptyAnswer: 'zero' }, execution: { concurrency: 4, maxFailures: 0 } };
    const config = validateExperimentConfig(JSON.parse(JSON.stringify(stored)), 'runs/old/config.json');
    expect(config.benchmarks).toHaveLength(1);
    expect(config.retrieval?.retrievers).toEqual([{ name: 'hnsw', index: 'indexes/demo' }]);
  });

  it('names file, line and column of a YAML syntax error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-config-'));
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'name: demo\nretrieval:\n  k: [10, 20\nmodels: []\n');
    await expect(loadExperimentConfig(file)).rejects.toThrow(/broken\.yaml:\d+:\d+: invalid YAML/);
  });

  it('rejects a duplicated key in YAML', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-config-'));
    const file = join(dir, 'dup.yaml');
    writeFileSync(file, 'name: a\nname: b\n');
    await expect(loadExperimentConfig(file)).rejects.toThrow(/dup\.yaml:2:\d+: invalid YAML/);
  });

  it('reports a missing config file by name', async () => {
    await expect(loadExperimentConfig('/nonexistent/exp.yaml')).rejects.toThrow('/nonexistent/exp.yaml: cannot read config (ENOENT)');
  });

  it('applies --set overrides with YAML values before validation', () => {
    const config = applyOverrides(valid(), ['retrieval.k=[10, 50]', 'seed=7', 'scoring.compat=reference']) as any;
    expect(config.retrieval.k).toEqual([10, 50]);
    expect(config.seed).toBe(7);
    expect(validateExperimentConfig(config, 'x').scoring.compat).toBe('reference');
  });

  it('applies --set overrides into list elements', () => {
    const config = applyOverrides(valid(), ['models[0].model=deepseek-chat', 'models[0].temperature=0']) as any;
    expect(config.models[0]).toEqual({ name: 'extractive', model: 'deepseek-chat', temperature: 0 });
  });

  it('rejects an override that indexes into something that is not a list', () => {
    expect(() => applyOverrides(valid(), ['name[0]=x'])).toThrow('--set name[0]=x: name is not an object or a list');
  });

  it('rejects an override without a value', () => {
    expect(() => applyOverrides(valid(), ['seed'])).toThrow('--set seed: expected path=value');
  });
});
