import type { PlanCell, Range, RunPlan } from '../runFiles/plan.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { escapeHtml as esc } from './escape.js';
import { formatNumber, formatRange } from './planTable.js';
import { groupBy } from '../diagnostics/groupBy.js';

interface Actual {
  answers: number;
  generationCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Summed over the answers that recorded one; null when none did (no `price`). */
  price: number | null;
  estimatedTokens: boolean;
  /** Answers that failed: they may stop before a method's least calls, so the plan's minimum is not judged. */
  failed: number;
}

function actualOf(records: RunItemRecord[]): Actual {
  const out: Actual = { answers: records.length, generationCalls: 0, promptTokens: 0, completionTokens: 0, price: null, estimatedTokens: false, failed: 0 };
  for (const r of records) {
    if (r.error) out.failed++;
    if (!r.cost) continue;
    out.generationCalls += r.cost.generationCalls;
    out.promptTokens += r.cost.promptTokens;
    out.completionTokens += r.cost.completionTokens;
    if (r.cost.price !== undefined) out.price = (out.price ?? 0) + r.cost.price;
    out.estimatedTokens ||= r.cost.estimatedTokens === true;
  }
  return out;
}

/** Outside the planned range, with `tolerance` (a share: an endpoint counts tokens its own way); the minimum only where `judgeMin`. */
const outside = (actual: number, range: Range, tolerance: number, judgeMin: boolean) =>
  (judgeMin && actual < range.min * (1 - tolerance) - 1e-9) || (range.max !== null && actual > range.max * (1 + tolerance) + 1e-9);

/** One `plan / actual` pair of cells; the actual marked when it falls outside the plan. */
function pair(range: Range | null | undefined, actual: number | null, digits: number, tolerance: number, judged: boolean, judgeMin = true): string {
  const planned = range ? formatRange(range, digits) : '–';
  if (actual === null) return `<td>${planned}</td><td>–</td>`;
  const off = judged && range ? outside(actual, range, tolerance, judgeMin) : false;
  return `<td>${planned}</td><td${off ? ' class="neg" title="outside the plan"' : ''}>${formatNumber(actual, digits)}</td>`;
}

/**
 * "Plan against actual": what `plan.json` estimated beside what the answers recorded; an actual outside
 * a bound is marked (tokens and price with 1% allowance: the endpoint counts tokens its own way).
 */
export function planVsActualHtml(plan: RunPlan | undefined, records: RunItemRecord[]): string {
  if (!plan) return '';
  const byCell = groupBy(records, (r) => `${r.model}\u0000${r.condition}`);
  const priced = plan.cells.some((c) => c.price) || records.some((r) => r.cost?.price !== undefined);
  const batched = plan.cells.some((c) => c.batchPrice);
  const estimated = records.some((r) => r.cost?.estimatedTokens);
  const row = (label: string, condition: string, planned: Omit<RunPlan['cells'][number], 'model' | 'condition' | 'basis'>, actual: Actual, bases: PlanCell['basis'][]) => {
    // Judged against the plan once the cell is answered in full (not a run that stopped early): every
    // figure is a bound (plans from before bounds held, `earlier-run`, are not judged); the minimum
    // only where no answer failed (a failed answer stops early).
    const complete = actual.answers >= planned.answers;
    const bound = complete && bases.every((b) => b !== 'earlier-run');
    const judgeMin = actual.failed === 0;
    return `<tr><td>${esc(label)}</td><td>${esc(condition)}</td><td>${actual.answers} / ${planned.answers}</td>` +
      pair(planned.generationCalls, actual.generationCalls, 0, 0, bound, judgeMin) +
      pair(planned.promptTokens, actual.promptTokens, 0, 0.01, bound, judgeMin) +
      pair(planned.completionTokens, actual.completionTokens, 0, 0.01, bound, judgeMin) +
      (priced ? pair(planned.batchPrice ?? planned.price, actual.price, 4, 0.01, bound, judgeMin) : '') +
      `<td>${bases.length === 1 ? esc(bases[0]!) : ''}</td></tr>`;
  };
  const rows = plan.cells.map((cell) => row(cell.model, cell.condition, cell, actualOf(byCell.get(`${cell.model}\u0000${cell.condition}`) ?? []), [cell.basis]));
  const planned = new Set(plan.cells.map((c) => `${c.model}\u0000${c.condition}`));
  rows.push(row('total', '', plan.total, actualOf(records.filter((r) => planned.has(`${r.model}\u0000${r.condition}`))), plan.cells.map((c) => c.basis)));
  return [
    '<h2 id="plan">Plan against actual</h2>',
    `<p class="meta">What <code>plan.json</code> estimated before the first answer${plan.plannedAt ? ` (${esc(plan.plannedAt)})` : ''}, the dry run's figures, beside what the answers recorded (their cost, summed, failed answers included). ` +
      `Ranges are the plan's bounds (unbounded where nothing bounds a figure: the plan says what would). Basis: exact = every prompt built as the run will; bounds = each of the method's calls at most its template, question, passages and earlier outputs. ` +
      `Once every answer of a cell is in, an actual outside its plan is marked (tokens and price with 1% allowance: the plan counts tokens with the project's estimate, an endpoint reports its own; the minimum only where no answer failed).` +
      `${batched ? ' Price: at the batch rate for models with <code>batch: true</code>.' : ''}${estimated ? ' Some tokens were estimated (the endpoint reported no usage).' : ''}</p>`,
    `<div class="scroll"><table class="plan-vs-actual"><tr><th>model</th><th>condition</th><th>answers done / planned</th><th>model calls: plan</th><th>actual</th><th>prompt tokens: plan</th><th>actual</th><th>completion tokens: plan</th><th>actual</th>${priced ? '<th>price: plan</th><th>actual</th>' : ''}<th>basis</th></tr>`,
    ...rows,
    '</table></div>',
  ].join('\n');
}
