import type { JudgeCheckSummary } from '../runFiles/summary.js';

/**
 * What every surface that shows corrected figures says of the labels behind them: whose they are,
 * that they are synthetic when they are, and which synthetic labels were left out because a person's
 * exist (the two kinds are never pooled). Plain text; each surface escapes it for its format.
 */
export function labelBasisLines(check: Pick<JudgeCheckSummary, 'labelledAnswers' | 'annotators' | 'synthetic' | 'syntheticLeftOut'>): string[] {
  const lines: string[] = [];
  const whose = `${check.labelledAnswers} answers labelled by ${check.annotators.join(', ')}`;
  if (check.synthetic) lines.push(`SYNTHETIC LABELS: the corrected figures rest on ${whose}, labels declared synthetic (a stand-in's, not a person's reading).`);
  else lines.push(`Corrected figures from a person's labels: ${whose}.`);
  const out = check.syntheticLeftOut;
  if (out) {
    lines.push(`Synthetic labels of ${out.annotators.join(', ')} (${out.answers} answers) are left out of the corrected figures, since a person's labels exist; their agreement with the judge is reported apart, marked synthetic.`);
  }
  return lines;
}
