import type { Range, RunPlan } from '../estimate/estimateRun.js';
import { renderTextTable } from './table.js';

const range = (r: Range, digits = 0) => {
  const f = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  if (r.max === null) return `≥ ${f(r.min)}`;
  return r.min === r.max ? f(r.min) : `${f(r.min)}–${f(r.max)}`;
};

/** The dry run's table: per model × condition and in total, what the run will cost before any call. */
export function planTable(plan: RunPlan): string {
  const priced = plan.cells.some((c) => c.price);
  const rows = plan.cells.map((c) => [
    c.model,
    c.condition,
    String(c.answers),
    range(c.generationCalls),
    range(c.promptTokens),
    range(c.completionTokens),
    String(c.judgeCalls),
    String(c.cachedCalls),
    ...(priced ? [c.price ? range(c.price, 4) : '–'] : []),
    c.basis,
  ]);
  const t = plan.total;
  rows.push(['total', '', String(t.answers), range(t.generationCalls), range(t.promptTokens), range(t.completionTokens), String(t.judgeCalls), String(t.cachedCalls), ...(priced ? [t.price ? range(t.price, 4) : '–'] : []), '']);
  const lines = [
    `hisrag run --dry-run ${plan.experiment}: no model was called`,
    renderTextTable(['model', 'condition', 'answers', 'model calls', 'prompt tokens', 'completion tokens', 'judge calls', 'cached', ...(priced ? ['price'] : []), 'basis'], rows),
    "basis: exact = every prompt built as the run will (one-prompt conditions); bounds = the method's parameters (tokens scaled from its first prompt); earlier-run = means of --estimate-from. Completion tokens: the models' maxTokens (≥ 0 without one). Tokens: the project's estimate (cjk-estimate).",
  ];
  if (t.minutesAtRateLimit !== null) lines.push(`at the configured rate limit: at least ${t.minutesAtRateLimit.toFixed(1)} minutes of model calls`);
  return lines.join('\n');
}
