import { Registry } from '../registry.js';
import { jsonlBenchmark } from './jsonl/loader.js';
import { longHisDocBenchmark } from './longhisdoc/loader.js';
import { proHistBenchmark } from './prohist/loader.js';
import type { Benchmark } from './types.js';

/** Benchmark loaders by name; each spec is `{ name, file, ...filters }`. */
export const benchmarks = new Registry<Benchmark, void>('benchmark');

benchmarks.register(proHistBenchmark).register(longHisDocBenchmark).register(jsonlBenchmark);
