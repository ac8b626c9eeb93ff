import { existsSync } from 'node:fs';
import { InputError } from '../errors.js';
import type { ExperimentConfig } from './experiment.js';

/** The params of a benchmark spec that name an input file or folder (none of them is built by `prepare:`). */
const BENCHMARK_INPUTS = ['file', 'ocrDir', 'imageDir'] as const;

/**
 * Every input file or folder the config names that must exist before the run (the benchmarks' data,
 * label files) and does not, each named by its config field and path: refused (exit 2) before
 * anything is built or any model called. A lone benchmark is named `benchmark.…`, as a file with one
 * mostly writes it.
 */
export function assertConfiguredInputsExist(config: ExperimentConfig): void {
  const missing: string[] = [];
  const benchmarkPath = (i: number) => (config.benchmarks.length === 1 ? 'benchmark' : `benchmarks[${i}]`);
  for (const [i, spec] of config.benchmarks.entries()) {
    for (const key of BENCHMARK_INPUTS) {
      const path = (spec as Record<string, unknown>)[key];
      if (typeof path === 'string' && !existsSync(path)) missing.push(`${benchmarkPath(i)}.${key}: ${path}: no such ${key === 'file' ? 'file' : 'folder'}`);
    }
  }
  for (const [i, label] of (config.labels ?? []).entries()) if (!existsSync(label.file)) missing.push(`labels[${i}].file: ${label.file}: no such file`);
  if (missing.length > 0) throw new InputError(missing.join('\n'));
}
