import { describe, expect, it } from 'vitest';
import { validateExperimentConfig } from '../../src/config/load.js';
import { validateComponents } from '../../src/experiment/stages.js';
import { failureLines } from '../../src/app/runOutputs.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';

const base = {
  name: 'labels',
  benchmark: { name: 'prohist', file: 'experiments/data/demo-prohist.json' },
  strategies: ['closed-book', 'rag'],
  judge: { name: 'lexical' },
};

describe('labels of a grid’s components', () => {
  it('refuses two models with one label, naming the second one’s path and the label', async () => {
    const config = validateExperimentConfig(
      { ...base, strategies: ['closed-book'], models: [{ name: 'extractive', label: 'same' }, { name: 'extractive', label: 'same' }] },
      'exp.yaml',
    );
    await expect(validateComponents(config)).rejects.toThrow('models[1].label: two models are both labelled "same"; give them distinct labels');
  });

  it('refuses two retrievers with one label, and accepts distinct ones', async () => {
    const retrieval = (second: string) => ({
      retrievers: [{ name: 'random', index: 'indexes/a', label: 'r' }, { name: 'random', index: 'indexes/b', label: second }],
      k: [1],
    });
    const models = [{ name: 'extractive' }];
    const clash = validateExperimentConfig({ ...base, models, retrieval: retrieval('r') }, 'exp.yaml');
    await expect(validateComponents(clash)).rejects.toThrow('retrieval.retrievers[1].label: two retrievers are both labelled "r"; give them distinct labels');
    await expect(validateComponents(validateExperimentConfig({ ...base, models, retrieval: retrieval('s') }, 'exp.yaml'))).resolves.toBeUndefined();
  });
});

describe('the failure lines a run prints', () => {
  const record = (itemId: string, condition: string, status: string, error?: string): RunItemRecord =>
    ({ key: `${condition}|${itemId}`, itemId, model: 'm', condition, score: { status, ...(error ? { error } : {}) } }) as unknown as RunItemRecord;

  it('gives one line per cell with failures, in first-seen order: count, the first ids, the first reason’s first line', () => {
    const records = [
      record('q1', 'rag@10', 'generation-failed', 'HTTP 500\nbody'),
      record('q2', 'rag@10', 'scored'),
      record('q3', 'closed-book', 'judge-failed', 'unparseable verdict'),
      record('q4', 'rag@10', 'generation-failed', 'timeout'),
      record('q5', 'rag@10', 'generation-failed'),
    ];
    expect(failureLines(records, 2)).toEqual([
      'm · rag@10: 3 failed, excluded from the mean (q1, q4, … 1 more): HTTP 500',
      'm · closed-book: 1 failed, excluded from the mean (q3): unparseable verdict',
    ]);
    expect(failureLines(records.filter((r) => r.score.status === 'scored'))).toEqual([]);
  });
});
