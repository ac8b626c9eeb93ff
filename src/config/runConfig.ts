import { readFile } from 'node:fs/promises';
import type { ExperimentConfig } from './experiment.js';
import { validateExperimentConfig } from './load.js';
import { DataFileError } from '../errors.js';
import { runFile } from '../runFiles/runDir.js';

/** A run directory's config.json, validated; a damaged file is a DataFileError naming it. */
export async function readRunConfig(runDir: string): Promise<ExperimentConfig> {
  const path = runFile(runDir, 'config');
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new DataFileError(`${path}: cannot read the run's config (${(error as Error).message})`);
  }
  return validateExperimentConfig(value, path);
}
