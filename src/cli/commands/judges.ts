import type { Command } from 'commander';

export function registerJudgesCommand(program: Command): void {
  program
    .command('judges')
    .description("Check a run's judge against the human labels beside its answers (labels/<annotator>.jsonl): Pearson at rubric and answer level, κ, α, the judge's bias per condition, and every mean and Δ corrected with the labels (PPI++)")
    .argument('<run-dir>', 'a run directory (experiments/runs/<run-id>)')
    .option('--json', 'print the figures as JSON')
    .addHelpText(
      'after',
      `
Examples:
  hisrag judges experiments/runs/<run-id>
  hisrag judges experiments/runs/<run-id> --json

No model is called. Exit codes: 0 done, 2 bad input, 1 internal error.`,
    )
    .action(async (runDir: string, opts: { json?: boolean }) => {
      const { checkRunJudge } = await import('../../app/judgeCheck.js');
      const { judgeCheckTables } = await import('../../report/table.js');
      const check = await checkRunJudge(runDir);
      process.stdout.write((opts.json ? JSON.stringify(check ?? null, null, 2) : judgeCheckTables(check)) + '\n');
    });
}
