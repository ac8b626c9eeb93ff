import type { Command } from 'commander';
import { EXIT_CODES, InputError } from '../../errors.js';
import { gracefulStop } from '../interrupts.js';

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Run an experiment grid (benchmarks × retrievers × k × strategies and RAG methods × models) and score it')
    .argument('[config]', 'experiment config (YAML)')
    .option('--resume <run-dir>', 'finish an interrupted run: answers already in items.jsonl are kept, the rest are run, and items recorded as failed are answered again')
    .option('--keep-failed', 'with --resume: do not answer again the items recorded as failed')
    .option('--run-id <id>', 'name of the run directory (default: <name>-<timestamp>)')
    .option('--set <path=value>', 'override a config field, value as YAML (repeatable), e.g. --set retrieval.k=[10,50]', collect, [])
    .option('--dry-run', 'plan before spending: answers, model calls, tokens, judge calls, cached calls and price per condition; no model is called')
    .option('--estimate-from <run-dir>', 'with --dry-run: the means of an earlier run of the grid, shown as a separate estimate beside the bounds, and its paired variances for the power figures')
    .option('--no-progress', 'do not show progress')
    .option('--quiet', 'print nothing but errors')
    .addHelpText(
      'after',
      `
Examples:
  hisrag run experiments/demo.yaml
  hisrag run experiments/prohist-rag-depth.yaml --set retrieval.k=[10,20] --set models[0].model=deepseek-chat
  hisrag run --resume experiments/runs/demo-20261130-010203

A run directory holds config.json, manifest.json, items.jsonl (one line per answer), summary.json,
summary.csv and report.html. Ctrl-C stops at the next safe point (exit 130); resume with --resume.
One writer per run directory: a run or diagnosis still writing it (writer.lock) is named and this one
refused (exit 2); a lock left by a process that died is taken over.
Exit codes: 0 done, 2 bad input (config, data file), 3 an endpoint unavailable or execution.maxFailures
reached (resumable), 130 interrupted, 1 internal error.`,
    )
    .action(async (configFile: string | undefined, opts: { resume?: string; keepFailed?: boolean; runId?: string; set: string[]; progress: boolean; quiet?: boolean; dryRun?: boolean; estimateFrom?: string }) => {
      if (opts.estimateFrom && !opts.dryRun) throw new InputError('run: --estimate-from goes with --dry-run');
      if (opts.dryRun) {
        if (!configFile || opts.resume) throw new InputError('run: --dry-run plans a config file (not a --resume)');
        const { loadExperimentConfig } = await import('../../config/load.js');
        const { planWithPower } = await import('../../estimate/power.js');
        const { planTable, powerTable } = await import('../../report/planTable.js');
        const { plan, power } = await planWithPower(await loadExperimentConfig(configFile, opts.set), { ...(opts.estimateFrom ? { estimateFrom: opts.estimateFrom } : {}) });
        process.stdout.write(planTable(plan) + '\n\n' + powerTable(power) + '\n');
        return;
      }
      if (opts.keepFailed && !opts.resume) throw new InputError('run: --keep-failed goes with --resume <run-dir>');
      if (!configFile && !opts.resume) throw new InputError('run: give a config file, or --resume <run-dir>');
      if (configFile && opts.resume) throw new InputError('run: give either a config file or --resume <run-dir>, not both');
      if (opts.resume && opts.set.length) throw new InputError('run: --set cannot change a run being resumed (its stored config is used)');
      const log = opts.quiet ? () => {} : (line: string) => process.stdout.write(line + '\n');
      // Ctrl-C: answers in flight are kept, nothing new starts; the CLI exits 130 (resume with --resume).
      const stop = gracefulStop();
      try {
        // Loaded on use so that `hisrag --help` and other commands start fast.
        const { loadExperimentConfig } = await import('../../config/load.js');
        const { runExperiment } = await import('../../experiment/runner.js');
        const config = configFile ? await loadExperimentConfig(configFile, opts.set) : undefined;
        if (config?.diagnostics) {
          // Bad diagnostics settings (an unknown baseline, a checker that cannot run) stop the run before its first answer.
          const { plannedConditionNames, prepareDiagnostics, resolveDiagnosticsConfig } = await import('../../diagnostics/diagnoseRun.js');
          await prepareDiagnostics(config, resolveDiagnosticsConfig(config), await plannedConditionNames(config));
        }
        const result = await runExperiment({
          ...(config ? { config, configFile } : {}),
          ...(opts.resume ? { resumeDir: opts.resume, retryFailed: !opts.keepFailed } : {}),
          ...(opts.runId ? { runId: opts.runId } : {}),
          log,
          progress: opts.progress && !opts.quiet,
          signal: stop.signal,
        });
        if (result.interrupted) {
          process.exitCode = EXIT_CODES.interrupted;
          return;
        }
        // A config with a diagnostics: section is diagnosed once its answers are in: the diagnostics
        // stage reads the finished run directory (the runner knows nothing of it).
        const { readFile } = await import('node:fs/promises');
        const { runFile } = await import('../../runFiles/runDir.js');
        const stored = JSON.parse(await readFile(runFile(result.runDir, 'config'), 'utf8')) as { diagnostics?: unknown };
        if (stored.diagnostics) {
          const { diagnoseRun } = await import('../../diagnostics/diagnoseRun.js');
          const { summaryTable } = await import('../../report/table.js');
          log('');
          const diagnosed = await diagnoseRun(result.runDir, { log, progress: opts.progress && !opts.quiet, signal: stop.signal });
          log('');
          log(summaryTable(diagnosed.summary));
          log('');
          log(`report: ${diagnosed.reportPath}`);
        }
      } finally {
        stop.release();
      }
    });
}
