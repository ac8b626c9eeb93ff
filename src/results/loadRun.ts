import { basename, resolve } from 'node:path';
import type { ExperimentConfig } from '../config/experiment.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { assertRunDirectory, readRunRecords } from '../runFiles/runDir.js';
import { readRunConfig } from '../config/runConfig.js';
import type { RunSummary } from '../runFiles/summary.js';
import { summarizeRun, type SummaryOptions } from '../analysis/summary.js';
import { methodsByStrategy } from '../experiment/cellMethod.js';
import { attachDiagnostics, readDiagnosticsState } from '../runFiles/diagnostics.js';
import { addDiagnosticsToSummary } from '../diagnostics/summary.js';
import { readRunPlan, type RunPlan } from '../runFiles/plan.js';
import { readRunManifest, type StoredRunManifest } from '../runFiles/manifest.js';
import { readLabelInclusion, readRunLabels } from '../runFiles/labelFiles.js';

/** A run directory read into memory: its config, manifest, answer records, summary and plan. */
export interface LoadedRun {
  id: string;
  dir: string;
  config: ExperimentConfig;
  manifest: StoredRunManifest;
  records: RunItemRecord[];
  /** Recomputed from the records (the same function the runner and the HTML report use). */
  summary: RunSummary;
  /** Model labels and condition names in the run's own order. */
  models: string[];
  conditions: string[];
  /** plan.json: what the run was estimated to cost before its first answer; absent for runs from before plans. */
  plan?: RunPlan;
}

/**
 * How a run directory's records are summarised: its config's baseline, resamples and seed, and the
 * models and conditions in the run's own order (the manifest's; the records' where it has none).
 * The one place the results API, the runner's report rewrite and the viewer take them from.
 */
export function summaryOptionsOf(config: ExperimentConfig, manifest: Pick<StoredRunManifest, 'models' | 'conditions'>, records: RunItemRecord[]): SummaryOptions {
  const listed = (value: string[] | undefined) => (value?.length ? value : null);
  return {
    experiment: config.name,
    models: listed(manifest.models) ?? [...new Set(records.map((r) => r.model))],
    conditions: listed(manifest.conditions) ?? [...new Set(records.map((r) => r.condition))],
    baseline: config.scoring.baseline,
    versus: config.scoring.versus,
    resamples: config.scoring.bootstrapResamples,
    seed: config.seed,
    ...(config.scoring.cluster !== undefined ? { cluster: config.scoring.cluster } : {}),
    ...(config.scoring.reducer ? { reducer: config.scoring.reducer } : {}),
    methods: methodsByStrategy(config),
  };
}

/** What a run directory's summary is computed from: config, manifest, records (with their diagnoses), labels, plan. */
export async function readRunInputs(dir: string) {
  const runDir = resolve(dir);
  assertRunDirectory(runDir);
  const config = await readRunConfig(runDir);
  const manifest = await readRunManifest(runDir);
  // A diagnosed run: each record gets the diagnosis that belongs to it as it is now (diagnostics.jsonl).
  const state = await readDiagnosticsState(runDir);
  const read = await readRunRecords(runDir);
  const records = state ? await attachDiagnostics(runDir, read, state) : read;
  const labels = await readRunLabels(runDir);
  const plan = await readRunPlan(runDir);
  // The draw's inclusion probabilities: the corrected figures weight labels by 1/π.
  const labelInclusion = labels.length ? await readLabelInclusion(runDir) : undefined;
  return { runDir, config, manifest, state, records, labels, labelInclusion, plan };
}

/** Loads one run directory (`experiments/runs/<run-id>`). */
export async function loadRun(dir: string): Promise<LoadedRun> {
  const { runDir, config, manifest, state, records, labels, labelInclusion, plan } = await readRunInputs(dir);
  const options = { ...summaryOptionsOf(config, manifest, records), ...(labels.length ? { labels } : {}), ...(labelInclusion ? { labelInclusion } : {}) };
  const { models, conditions } = options;
  const plain = summarizeRun(records, options);
  const summary = state
    ? { ...addDiagnosticsToSummary(plain, records, { baseline: state.settings.baseline, delta: state.settings.delta }), diagnostics: { ...state.settings, complete: state.complete } }
    : plain;
  return { id: basename(runDir), dir: runDir, config, manifest, records, summary, models, conditions, ...(plan ? { plan } : {}) };
}

/** Loads several run directories (e.g. one per model or per retriever) for side-by-side analysis. */
export async function loadRuns(dirs: string[]): Promise<LoadedRun[]> {
  return Promise.all(dirs.map((d) => loadRun(d)));
}
