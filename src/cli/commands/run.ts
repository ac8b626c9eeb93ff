import type { Command } from 'commander';
import { EXIT_CODES, InputError } from '../../errors.js';
import { gracefulStop } from '../interrupts.js';
import { collect } from '../options.js';

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
    .option('--frozen', 'build nothing: refuse (exit 2) when a prepared corpus, index or generated model is missing or out of date with its inputs, naming it and why')
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
Prepared artefacts (prepare:) are built when missing and rebuilt when their inputs change, saying why;
--frozen builds nothing and refuses instead. --dry-run keeps the questions' query vectors in
.cache/query-vectors.sqlite: planning them again loads no embedding model (--frozen only reads it).
Exit codes: 0 done, 2 bad input (config, data file, a missing or stale artefact under --frozen), 3 an endpoint
unavailable, execution.maxFailures reached, or no answer scored (resumable), 130 interrupted, 1 internal error.`,
    )
    .action(async (configFile: string | undefined, opts: { resume?: string; keepFailed?: boolean; runId?: string; set: string[]; progress: boolean; quiet?: boolean; dryRun?: boolean; estimateFrom?: string; frozen?: boolean }) => {
      if (opts.estimateFrom && !opts.dryRun) throw new InputError('run: --estimate-from goes with --dry-run');
      if (opts.dryRun) {
        if (!configFile || opts.resume) throw new InputError('run: --dry-run plans a config file (not a --resume)');
        const { loadExperimentConfig } = await import('../../config/load.js');
        const { planWithPower } = await import('../../app/dryRun.js');
        const { planTable, powerTable } = await import('../../report/planTable.js');
        // The dry run prepares artefacts as a run would: --frozen refuses a missing or stale one here too.
        const { plan, power } = await planWithPower(await loadExperimentConfig(configFile, opts.set), { ...(opts.estimateFrom ? { estimateFrom: opts.estimateFrom } : {}), ...(opts.frozen ? { frozen: true } : {}) });
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
        // A first line at once, before any import: checking a config loads every registered
        // component's module (LLM clients, embedders, indexes: seconds), the run its stages' libraries.
        log(configFile ? `hisrag run: checking ${configFile}` : `hisrag run: resuming ${opts.resume}`);
        const config = configFile ? await (await import('../../config/load.js')).loadExperimentConfig(configFile, opts.set) : undefined;
        if (config) log(`hisrag run ${config.name}: ${configFile} is valid; loading its stages`);
        const { runAndDiagnose } = await import('../../app/runAndDiagnose.js');
        const result = await runAndDiagnose({
          ...(config ? { config, configFile } : {}),
          ...(opts.resume ? { resumeDir: opts.resume, retryFailed: !opts.keepFailed } : {}),
          ...(opts.runId ? { runId: opts.runId } : {}),
          ...(opts.frozen ? { frozen: true } : {}),
          // A config with diagnostics prints one table, the diagnosed one, once its answers are in.
          ...(config?.diagnostics ? { printTable: false } : {}),
          log,
          progress: opts.progress && !opts.quiet,
          signal: stop.signal,
        });
        if (result.interrupted) process.exitCode = EXIT_CODES.interrupted;
      } finally {
        stop.release();
      }
    });
}
