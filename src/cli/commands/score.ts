import type { Command } from 'commander';
import { InputError } from '../../errors.js';
import { integer } from '../options.js';
import { SCORING_COMPAT_MODES, type ScoringCompat } from '../../scoring/compat.js';
import type { AgreementOptions, LongHisDocOptions, RubricOptions } from './scoreFiles.js';

function parseCompat(value: string): ScoringCompat {
  if (!(SCORING_COMPAT_MODES as readonly string[]).includes(value)) {
    throw new InputError(`--compat: expected one of ${SCORING_COMPAT_MODES.join(', ')}, got "${value}"`);
  }
  return value as ScoringCompat;
}

const parseSeed = integer('--seed', 0, 'a non-negative integer');

export function registerScoreCommands(program: Command): void {
  const score = program.command('score').description('Re-score saved model outputs with the shared scorer (the functions `hisrag run` uses)');

  score
    .command('rubric')
    .description(
      'ProHist-Bench Rubric Score from saved judge outputs. Input JSONL, one answer per line: `rubrics` and `judge_output` ' +
        '(lines `加分项_N: 0|1`), optionally `category`, `response` (enables the empty-answer and T4 length rules; reasoning ' +
        'blocks are dropped), `length_constraint`, `id`, `question`; MCQ lines (`category` 选择题) carry `answer` (e.g. "ADEF") ' +
        'and `response` instead. Each output line adds `rs` (rounded half-to-even, as the reference), `rs_raw` (unrounded) and ' +
        '`status` (`judge_failed` when a verdict is missing; rs is then null and the line is left out of the means).',
    )
    .requiredOption('--input <file>', 'input JSONL')
    .requiredOption('--output <file>', 'output JSONL')
    .option(
      '--compat <mode>',
      '`hisrag` (default) parses rubrics correctly; `reference` reproduces the published scorer exactly, including its quirk of ' +
        'dropping an item written on the 加分项/减分项 header line, so published numbers can be reproduced',
      parseCompat,
      'hisrag' as ScoringCompat,
    )
    .option('--seed <n>', 'bootstrap seed (default 0)', parseSeed, 0)
    .addHelpText('after', '\nBad records (not JSON, a missing field) are listed with their index and field; the good ones are still written, and the command exits 2.')
    .action(async (options: RubricOptions) => (await import('./scoreFiles.js')).scoreRubricFile(options));

  score
    .command('longhisdoc')
    .description(
      'LongHisDoc generalised accuracy. Input: LongHisDoc\'s QA layout {doc_id: [records]}; each record may carry `response` (the ' +
        'raw model text) and `extracted` (the extracted answer; when absent the rule-based extractor fills it). Output: the same ' +
        'layout with `extracted` and `score` (0–1, as LongHisDoc\'s own scorer writes it) per record; prints the overall ' +
        'accuracy × 100 and the breakdowns by type, answer_type and evidence_modal with 95% bootstrap CIs.',
    )
    .requiredOption('--input <file>', 'input JSON')
    .requiredOption('--output <file>', 'output JSON')
    .option('--seed <n>', 'bootstrap seed (default 0)', parseSeed, 0)
    .addHelpText('after', '\nBad records (a missing field, an unknown answer_type) are listed as doc_id[index] with the field; the good ones are still written, and the command exits 2.')
    .action(async (options: LongHisDocOptions) => (await import('./scoreFiles.js')).scoreLongHisDocFile(options));

  score
    .command('agreement')
    .description('Agreement between two judges (or a judge and a human) on the same answers: Pearson r at rubric-item level and at answer level.')
    .requiredOption('--a <file>', 'first verdict file (JSONL)')
    .requiredOption('--b <file>', 'second verdict file (JSONL)')
    .option('--compat <mode>', 'rubric/judge-output parsing: hisrag (default) or reference', parseCompat, 'hisrag' as ScoringCompat)
    .addHelpText(
      'after',
      `
Verdict file format (JSONL, one judged answer per line):
  {"id": "q17", "verdicts": {"加分项_1": 1, "加分项_2": 0, "减分项_1": 0}, "rubrics": "…", "score": 62.5}
  id            pairs lines across the two files (without ids, lines pair by position)
  verdicts      per-item 0/1 verdicts, or instead
  judge_output  the judge's raw text with lines 加分项_N: 0|1
  score         answer-level score (optional); otherwise RS from rubrics; otherwise the share of items marked 1
The output of \`hisrag score rubric\` is a valid verdict file; its multiple-choice lines (category
选择题, scored by their letters rather than judged) are left out and counted.`,
    )
    .action(async (options: AgreementOptions) => (await import('./scoreFiles.js')).printAgreement(options));
}
