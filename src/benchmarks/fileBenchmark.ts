import { resolve } from 'node:path';
import { BenchmarkFilterSchema, describeFilter, type BenchmarkFilter } from './filters.js';
import type { Benchmark, BenchmarkItem } from './types.js';

/**
 * A benchmark read from a file. `describe()` reports its name, label and file, its own `settings`,
 * what the last `load` found (hash, counts) and the filter.
 */
export function fileBenchmark(
  name: string,
  params: BenchmarkFilter & { file: string; label: string },
  settings: Record<string, unknown>,
  load: () => Promise<{ items: BenchmarkItem[]; found: Record<string, unknown> }>,
): Benchmark {
  let found: Record<string, unknown> | undefined;
  return {
    name,
    async load() {
      const loaded = await load();
      found = loaded.found;
      return loaded.items;
    },
    describe() {
      const filter = Object.fromEntries(Object.keys(BenchmarkFilterSchema.shape).map((key) => [key, params[key as keyof BenchmarkFilter]]));
      return { name, label: params.label, file: resolve(params.file), ...settings, ...(found ?? {}), filter: describeFilter(filter as BenchmarkFilter) };
    },
  };
}
