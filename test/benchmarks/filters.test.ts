import { describe, expect, it } from 'vitest';
import { applyBenchmarkFilter, BenchmarkFilterSchema } from '../../src/benchmarks/filters.js';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';

const items: BenchmarkItem[] = Array.from({ length: 40 }, (_, i) => ({
  id: `q${i}`,
  benchmark: 'b',
  kind: 'rubric',
  question: `问题${i}`,
  category: i % 2 ? '名词解释' : '简答题',
  task: i % 2 ? 'T1' : 'T2',
  meta: { level_of_difficulty: (i % 3) + 1, dynasty: i < 20 ? '宋' : '明' },
}));

const filter = (spec: Record<string, unknown>) => applyBenchmarkFilter(items, BenchmarkFilterSchema.parse(spec));

describe('benchmark filters', () => {
  it('keeps items of the listed categories and tasks', () => {
    expect(filter({ categories: ['名词解释'] }).every((i) => i.task === 'T1')).toBe(true);
    expect(filter({ tasks: ['T2'] })).toHaveLength(20);
  });

  it('matches difficulty given as a number or as text', () => {
    expect(filter({ difficulties: [1] }).map((i) => i.id)).toEqual(filter({ difficulties: ['1'] }).map((i) => i.id));
    expect(filter({ difficulties: [1] }).every((i) => i.meta.level_of_difficulty === 1)).toBe(true);
  });

  it('combines filters with AND', () => {
    const kept = filter({ dynasties: ['明'], tasks: ['T1'] });
    expect(kept).toHaveLength(10);
    expect(kept.every((i) => i.meta.dynasty === '明' && i.task === 'T1')).toBe(true);
  });

  it('samples the same items for the same seed, in file order', () => {
    const a = filter({ sample: 7, seed: 5 }).map((i) => i.id);
    expect(filter({ sample: 7, seed: 5 }).map((i) => i.id)).toEqual(a);
    expect(a).toHaveLength(7);
    expect([...a].sort((x, y) => Number(x.slice(1)) - Number(y.slice(1)))).toEqual(a);
  });

  it('samples different items for a different seed', () => {
    expect(filter({ sample: 7, seed: 6 }).map((i) => i.id)).not.toEqual(filter({ sample: 7, seed: 5 }).map((i) => i.id));
  });

  it('applies the limit after the sample', () => {
    expect(filter({ sample: 10, seed: 1, limit: 3 }).map((i) => i.id)).toEqual(filter({ sample: 10, seed: 1 }).slice(0, 3).map((i) => i.id));
  });
});
