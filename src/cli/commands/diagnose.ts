import type { Command } from 'commander';
import { EXIT_CODES, InterruptedError } from '../../errors.js';
import { gracefulStop } from '../interrupts.js';
import { collect } from '../options.js';

export function registerDiagnoseCommand(program: Command): void {
  program
    .command('diagnose')
    .description('Why retrieval helped or hurt: help/hurt decomposition and claim-level diagnostics (RAGChecker’s metrics) for a run directory')
    .argument('<run-dir>', 'a run directory (experiments/runs/<run-id>)')
    .option('--set <path=value>', 'override a diagnostics setting, value as YAML (repeatable), e.g. --set prefilter=none --set baseline=rag@10', collect, [])
    .option('--no-progress', 'do not show progress')
    .option('--quiet', 'print nothing but errors')
    .addHelpText(
      'after',
      `
Examples:
  hisrag diagnose experiments/runs/demo-20261201-101010
  hisrag diagnose experiments/runs/demo-20261201-101010 --set prefilter=none
  hisrag diagnose experiments/runs/prohist-… --set checker='{name: openai, baseURL: https://api.deepseek.com/v1, model: deepseek-chat, apiKeyEnv: DEEPSEEK_API_KEY}'

Settings come from the run config's diagnostics: section (defaults: baseline = scoring.baseline,
delta 10, extractor and checker = the run's judge endpoint, or the offline stand-ins for the
offline judge; prefilter hybrid, topChunks 3). No answer is generated again; every extraction
and label is cached (diagnostics-cache.sqlite); Ctrl-C or kill -9 and a second call resumes.
summary.json, summary.csv, report.html and items.jsonl are rewritten with the diagnostics.
It holds the run directory's writer.lock as a run does: refused (exit 2, the holder named) while
another process writes the run.
Exit codes: 0 done, 2 bad input, 3 an endpoint unavailable (resumable), 130 interrupted.`,
    )
    .action(async (runDir: string, opts: { set: string[]; progress: boolean; quiet?: boolean }) => {
      const log = opts.quiet ? () => {} : (line: string) => process.stdout.write(line + '\n');
      const stop = gracefulStop();
      try {
        const { diagnoseRun } = await import('../../app/diagnose.js');
        const { summaryTable } = await import('../../report/table.js');
        const result = await diagnoseRun(runDir, { overrides: opts.set, log, progress: opts.progress && !opts.quiet, signal: stop.signal });
        log('');
        log(summaryTable(result.summary));
        log('');
        log(`report: ${result.reportPath}`);
      } catch (error) {
        if (error instanceof InterruptedError) {
          process.stderr.write(`hisrag: ${error.message}\n`);
          process.exitCode = EXIT_CODES.interrupted;
          return;
        }
        throw error;
      } finally {
        stop.release();
      }
    });
}
