import { readRunConfig } from '../config/runConfig.js';
import { withResolvedBaseline } from '../experiment/plan.js';
import { runExperiment, type RunOptions, type RunResult } from './runExperiment.js';

/**
 * `hisrag run`: the run, then its diagnosis when the config has a `diagnostics:` section (bad
 * diagnostics settings stop the run before its first answer; the modules load only when needed).
 */
export async function runAndDiagnose(options: RunOptions): Promise<RunResult | { runDir: string; interrupted: boolean }> {
  // No models: a retrieval-only study (no generator, no answers to diagnose).
  if (options.config && !options.config.models) return (await import('./retrievalStudy.js')).runRetrievalOnly({ ...options, config: options.config });
  if (options.config?.diagnostics) {
    // Diagnostics default to the run's baseline: checked against the resolved one, as runExperiment resolves it.
    const { config } = await withResolvedBaseline(options.config);
    const { plannedConditionNames, prepareDiagnostics, resolveDiagnosticsConfig } = await import('../diagnostics/diagnoseRun.js');
    await prepareDiagnostics(config, resolveDiagnosticsConfig(config), await plannedConditionNames(config));
  }
  const result = await runExperiment(options);
  if (result.interrupted) return result;
  // The stored config decides: a resumed run is diagnosed when it was started with diagnostics.
  const stored = await readRunConfig(result.runDir);
  if (!stored.diagnostics) return result;
  const { diagnoseRun } = await import('./diagnose.js');
  const { summaryTable } = await import('../report/table.js');
  const log = options.log ?? (() => {});
  log('');
  const diagnosed = await diagnoseRun(result.runDir, { log, progress: options.progress ?? false, ...(options.signal ? { signal: options.signal } : {}) });
  log('');
  log(summaryTable(diagnosed.summary));
  log('');
  log(`report: ${diagnosed.reportPath}`);
  return result;
}
