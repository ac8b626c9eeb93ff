import type { Command } from 'commander';
import { InputError } from '../../errors.js';

export function registerRejudgeCommand(program: Command): void {
  program
    .command('rejudge')
    .description("Score a run's rubric answers again with another judge (a candidate for the judge-selection table): verdicts go to judges/<name>.jsonl beside the answers, never items.jsonl; `hisrag judges` then puts each judge and the panel's majority against the human labels")
    .argument('<run-dir>', 'a run directory (experiments/runs/<run-id>)')
    .requiredOption('--judge <judge>', 'a judge name (lexical), a { "name": …, … } spec as JSON, or a YAML/JSON file holding a judge spec (or a config whose judge: block it takes)')
    .option('--as <name>', 'the panel judge’s name: its file judges/<name>.jsonl and its row in the table (default: the judge’s name)')
    .option('--dry-run', 'print what it would judge and the judge calls it needs; judge nothing')
    .option('--concurrency <n>', 'answers judged at once (default: the run’s execution.concurrency)', (value: string) => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new InputError(`--concurrency: expected a whole number from 1, got "${value}"`);
      return n;
    })
    .addHelpText(
      'after',
      `
Examples:
  hisrag rejudge experiments/runs/<run-id> --judge lexical --dry-run
  hisrag rejudge experiments/runs/<run-id> --judge judge-deepseek.yaml --as deepseek-r1
  hisrag rejudge experiments/runs/<run-id> --judge '{"name":"llm","generator":{"name":"openai","model":"qwen-max","cache":".cache/qwen.sqlite"}}' --as qwen
  hisrag judges experiments/runs/<run-id>

The answers are scored through the run's scorer (its rubric rules, the judge's response cache, batch
rounds when the judge's generator has batch: true). Resumable: answers already in the judge's file
are skipped. Exit codes: 0 done, 2 bad input, 3 the judge's endpoint unavailable (run it again).`,
    )
    .action(async (runDir: string, opts: { judge: string; as?: string; dryRun?: boolean; concurrency?: number }) => {
      const { rejudgeRun } = await import('../../app/rejudge.js');
      await rejudgeRun(runDir, {
        judge: opts.judge,
        ...(opts.as ? { as: opts.as } : {}),
        dryRun: opts.dryRun ?? false,
        ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
        log: (line) => process.stdout.write(line + '\n'),
      });
    });
}
