import type { PowerPlan } from '../estimate/power.js';
import type { Range, RunPlan } from '../runFiles/plan.js';
import { renderTextTable } from './table.js';

/** `x.toLocaleString('en-US')` (`digits` fraction digits when given); integers grouped here: ICU takes ~30 ms to start. */
export function formatNumber(x: number, digits?: number): string {
  if (Number.isSafeInteger(x) && !Object.is(x, -0) && !digits) return String(x).replace(/\B(?=(\d{3})+$)/g, ',');
  return x.toLocaleString('en-US', digits === undefined ? {} : { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** `1,234`, `12–40`, `12–unbounded` (nothing bounds it): a plan's figure. */
export function formatRange(r: Range, digits = 0): string {
  const f = (x: number) => formatNumber(x, digits);
  if (r.max === null) return `${f(r.min)}–unbounded`;
  return r.min === r.max ? f(r.min) : `${f(r.min)}–${f(r.max)}`;
}

/** The dry run's table: per model × condition and in total, what the run will cost before any call. */
export function planTable(plan: RunPlan): string {
  const f = (x: number) => formatNumber(x);
  const priced = plan.cells.some((c) => c.price);
  // Models answered through a batch API (`batch: true`) have their price at the batch rate beside the live one.
  const batched = plan.cells.some((c) => c.batchPrice);
  const prices = (c: { price: Range | null; batchPrice?: Range | undefined }) => [
    ...(priced ? [c.price ? formatRange(c.price, 4) : '–'] : []),
    ...(batched ? [c.batchPrice ? formatRange(c.batchPrice, 4) : c.price ? formatRange(c.price, 4) : '–'] : []),
  ];
  // An earlier run's means (--estimate-from) are an estimate, shown apart from the bounds.
  const estimated = plan.cells.some((c) => c.estimate);
  const estimate = (c: RunPlan['cells'][number]) =>
    estimated ? [c.estimate ? `${f(c.estimate.generationCalls)} / ${f(c.estimate.promptTokens)} / ${f(c.estimate.completionTokens)}` : '–'] : [];
  const rows = plan.cells.map((c) => [
    c.model,
    c.condition,
    String(c.answers),
    formatRange(c.generationCalls),
    formatRange(c.promptTokens) + (c.tokenUnit ? ` ${c.tokenUnit}` : ''),
    formatRange(c.completionTokens),
    String(c.judgeCalls),
    String(c.cachedCalls),
    ...prices(c),
    c.basis,
    ...estimate(c),
  ]);
  const t = plan.total;
  rows.push(['total', '', String(t.answers), formatRange(t.generationCalls), formatRange(t.promptTokens), formatRange(t.completionTokens), String(t.judgeCalls), String(t.cachedCalls), ...prices(t), '', ...(estimated ? [''] : [])]);
  const header = ['model', 'condition', 'answers', 'model calls', 'prompt tokens', 'completion tokens', 'judge calls', 'cached', ...(priced ? ['price'] : []), ...(batched ? ['batch price'] : []), 'basis', ...(estimated ? ['estimate: calls / prompt / completion'] : [])];
  const lines = [
    `hisrag run --dry-run ${plan.experiment}: no model was called`,
    renderTextTable(header, rows),
    'Every range is a bound no run leaves: exact = every prompt built as the run will (one-prompt conditions); ' +
      "bounds = each of the method's calls at most its template, the question, the most passages it sees at k (each at most the index's longest chunk, together at most the context budget) " +
      "and every earlier output it re-reads (each at most the model's maxTokens). Tokens: the project's estimate (cjk-estimate) unless a cell names its model's tokenizer (\`tokenizer:\`, exact prompts only); an endpoint counts with its own tokenizer.",
  ];
  const reasons = [...new Set(plan.cells.flatMap((c) => c.unbounded ?? []))];
  for (const reason of reasons) {
    const where = plan.cells.filter((c) => c.unbounded?.includes(reason));
    lines.push(`unbounded (${reason}): ${where.length === plan.cells.length ? 'every condition' : where.map((c) => `${c.model} ${c.condition}`).join(', ')}`);
  }
  if (estimated) lines.push(`estimate: the means of the earlier run ${plan.cells.find((c) => c.estimate)!.estimate!.from} (--estimate-from) times the answers: an estimate, not a bound.`);
  if (batched) lines.push('batch price: models with batch: true at their price.batchDiscount (default 0.5) of the live price; the others at the live price.');
  if (t.minutesAtRateLimit !== null) lines.push(`at the configured rate limit: at least ${t.minutesAtRateLimit.toFixed(1)} minutes of model calls`);
  return lines.join('\n');
}

/**
 * Power before the run: per comparison, n, clusters, σ_d, design effect, the minimum detectable
 * difference at the test's level and at the Bonferroni level of its family (Holm's strictest step),
 * and the questions a `--difference` needs at both.
 */
export function powerTable(power: PowerPlan): string {
  const num = (x: number | null, digits: number) => (x === null || !Number.isFinite(x) ? '–' : x.toFixed(digits));
  const count = (x: number | null) => (x === null ? '–' : formatNumber(x));
  const asked = power.difference !== undefined;
  const pct = `${Math.round(power.power * 100)}%`;
  const labels = power.labelPlan;
  const header = ['model', 'condition', 'vs', 'n', 'clusters', 'σ_d', 'design effect', `MDD`, `MDD (Bonferroni)`, ...(asked ? [`n for Δ ${power.difference}`, `n for Δ ${power.difference} (Bonferroni)`] : []), ...(labels ? [`labels for ±${labels.width / 2}`] : [])];
  const rows = power.comparisons.map((c) => [
    c.model,
    c.condition,
    c.reference,
    String(c.n),
    String(c.clusters),
    num(c.sd, 1),
    num(c.designEffect, 2),
    num(c.mdd, 1),
    num(c.mddBonferroni, 1),
    ...(asked ? [count(c.questionsNeeded), count(c.questionsNeededBonferroni)] : []),
    ...(labels ? [count(c.labelsNeeded ?? null)] : []),
  ]);
  const source =
    power.source.kind === 'earlier-run'
      ? `σ_d and design effect: the paired differences of the earlier run ${power.source.from} (--estimate-from), the design effect carried to ${(power.questions / Math.max(1, power.clusters)).toFixed(1)} questions per cluster through its intra-cluster correlation`
      : `σ_d and design effect: assumed, σ_d ${power.source.sd} points, intra-cluster correlation ${power.source.icc}${power.source.clusterSize !== undefined ? ` at ${power.source.clusterSize} questions per cluster` : ''} (design effect 1 + (m − 1)·ρ)` +
        (power.source.icc === 0 && power.clusterField ? `; the questions are clustered by ${power.clusterField}, so an ICC of 0 flatters the MDD: give --estimate-from <run-dir>, or hisrag power --sd --icc` : '');
  const lines = [
    `power before the run: minimum detectable difference (MDD, points) at ${pct} power, two-sided α = ${power.alpha}: (z₁₋α/₂ + z_power) · sqrt(design effect · σ_d² / n)`,
    renderTextTable(header, rows),
    source + '.',
    `families: ${power.families.map((f) => f.name ?? `${f.size} comparisons vs ${f.reference}`).join('; ')}; with Holm over a family each test faces a smaller α (at most α ÷ family size: the Bonferroni column bounds it).` +
      (power.clusterField ? ` Clusters: ${power.clusterField}.` : ''),
  ];
  if (power.comparisons.some((c) => c.mdd === null)) lines.push('–: the earlier run has no paired differences for that comparison.');
  if (labels)
    lines.push(
      `labels for ±${labels.width / 2}: questions to label in both conditions (of n) for a prediction-powered (PPI++) 95% interval of Δ at most ${labels.width} points wide, judge and human differences assumed to correlate at r = ${labels.judgeR} (–: not even labelling all).`,
    );
  if (asked) lines.push(`n for Δ: questions needed to detect a difference of ${power.difference} points at ${pct} power, at the same questions per cluster.`);
  return lines.join('\n');
}
