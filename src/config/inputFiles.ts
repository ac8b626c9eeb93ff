import { existsSync } from 'node:fs';
import { InputError } from '../errors.js';
import type { ExperimentConfig } from './experiment.js';

/** The params of a benchmark spec that name an input file or folder (none of them is built by `prepare:`). */
const BENCHMARK_INPUTS = ['file', 'ocrDir', 'imageDir'] as const;

/** The params of a corpus builder that name its sources (`input`: a file, a folder or a list of them). */
const CORPUS_INPUTS = ['input', 'imageDir'] as const;

/**
 * Every input file or folder the config names that must exist before the run (the benchmarks' data,
 * the prepared corpora's sources, label files) and does not, each named once by its config field and
 * path: refused (exit 2) before anything is built or any model called. A lone benchmark is named
 * `benchmark.…`, as a file with one mostly writes it; a corpus also by its name (a chunking sweep's
 * corpora share their sources).
 */
export function assertConfiguredInputsExist(config: ExperimentConfig): void {
  const missing: string[] = [];
  const seen = new Set<string>();
  for (const [i, corpus] of (config.prepare?.corpora ?? []).entries()) {
    const { name, builder } = corpus as { name?: unknown; builder?: Record<string, unknown> };
    for (const key of CORPUS_INPUTS) {
      const paths = [builder?.[key]].flat().filter((p): p is string => typeof p === 'string');
      for (const path of paths) {
        if (existsSync(path) || seen.has(path)) continue;
        seen.add(path);
        missing.push(`prepare.corpora[${i}].builder.${key} (corpus ${String(name)}): ${path}: no such file or folder`);
      }
    }
  }
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
