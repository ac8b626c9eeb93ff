import type { Range, RunPlan } from '../estimate/runPlan.js';
import { renderTextTable } from './table.js';

/** `1,234`, `12–40`, `12–unbounded` (nothing bounds it): a plan's figure. */
export function formatRange(r: Range, digits = 0): string {
  const f = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  if (r.max === null) return `${f(r.min)}–unbounded`;
  return r.min === r.max ? f(r.min) : `${f(r.min)}–${f(r.max)}`;
}

/** The dry run's table: per model × condition and in total, what the run will cost before any call. */
export function planTable(plan: RunPlan): string {
  const f = (x: number) => x.toLocaleString('en-US');
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
    formatRange(c.promptTokens),
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
      "and every earlier output it re-reads (each at most the model's maxTokens). Tokens: the project's estimate (cjk-estimate); an endpoint counts with its own tokenizer.",
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
