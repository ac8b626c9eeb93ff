import type { Range, RunPlan } from '../estimate/runPlan.js';
import { renderTextTable } from './table.js';

/** `1,234`, `12–40`, `≥ 0` (nothing bounds it): a plan's figure. */
export function formatRange(r: Range, digits = 0): string {
  const f = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  if (r.max === null) return `≥ ${f(r.min)}`;
  return r.min === r.max ? f(r.min) : `${f(r.min)}–${f(r.max)}`;
}

/** The dry run's table: per model × condition and in total, what the run will cost before any call. */
export function planTable(plan: RunPlan): string {
  const priced = plan.cells.some((c) => c.price);
  // Models answered through a batch API (`batch: true`) have their price at the batch rate beside the live one.
  const batched = plan.cells.some((c) => c.batchPrice);
  const prices = (c: { price: Range | null; batchPrice?: Range | undefined }) => [
    ...(priced ? [c.price ? formatRange(c.price, 4) : '–'] : []),
    ...(batched ? [c.batchPrice ? formatRange(c.batchPrice, 4) : c.price ? formatRange(c.price, 4) : '–'] : []),
  ];
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
  ]);
  const t = plan.total;
  rows.push(['total', '', String(t.answers), formatRange(t.generationCalls), formatRange(t.promptTokens), formatRange(t.completionTokens), String(t.judgeCalls), String(t.cachedCalls), ...prices(t), '']);
  const lines = [
    `hisrag run --dry-run ${plan.experiment}: no model was called`,
    renderTextTable(['model', 'condition', 'answers', 'model calls', 'prompt tokens', 'completion tokens', 'judge calls', 'cached', ...(priced ? ['price'] : []), ...(batched ? ['batch price'] : []), 'basis'], rows),
    "basis: exact = every prompt built as the run will (one-prompt conditions); bounds = the method's parameters (tokens scaled from its first prompt); earlier-run = means of --estimate-from. Completion tokens: the models' maxTokens (≥ 0 without one). Tokens: the project's estimate (cjk-estimate).",
  ];
  if (batched) lines.push('batch price: models with batch: true at their price.batchDiscount (default 0.5) of the live price; the others at the live price.');
  if (t.minutesAtRateLimit !== null) lines.push(`at the configured rate limit: at least ${t.minutesAtRateLimit.toFixed(1)} minutes of model calls`);
  return lines.join('\n');
}
