import { Registry } from '../registry.js';
import { jsonlSchema } from './jsonl/loaderSchema.js';
import { longHisDocSchema } from './longhisdoc/loaderSchema.js';
import { proHistSchema } from './prohist/loaderSchema.js';
import type { Benchmark } from './types.js';

/** Benchmark loaders by name; each spec is `{ name, file, ...filters }`. */
export const benchmarks = new Registry<Benchmark, void>('benchmark')
  .registerLazy(proHistSchema, async () => (await import('./prohist/loader.js')).proHistBenchmark.create)
  .registerLazy(longHisDocSchema, async () => (await import('./longhisdoc/loader.js')).longHisDocBenchmark.create)
  .registerLazy(jsonlSchema, async () => (await import('./jsonl/loader.js')).jsonlBenchmark.create);
