import { meanHeader, summaryMetric } from '../scoring/metrics.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { RunSummary } from '../runFiles/summary.js';
import { diffHtml, meanCiHtml, num, signed } from './htmlCells.js';
import { CONTEXT_END, parseContextBlock } from '../prompting/contextBlock.js';
import { depthCurveTableHtml, depthCurveTokensTableHtml, depthFamiliesHtml } from './depthCurveTable.js';
import { DISAGREEMENT_NOTE } from './table.js';
import { intervalDisagreesWithTest } from '../analysis/compare.js';
import { contextFigure, costFigure, depthFigure, rerankRecallFigure } from '../figures/runFigures.js';
import { figureSvg } from '../figures/render.js';
import type { VegaLiteSpec } from '../figures/lineFigure.js';
import { escapeHtml as esc } from './escape.js';
import { groupBy } from '../diagnostics/groupBy.js';
import { renderAnswerClaims, renderWhySection } from './whySection.js';
import { noiseStudy } from '../analysis/noiseStudy.js';
import { noiseStudyHtml } from './noiseStudy.js';
import { planVsActualHtml } from './planVsActual.js';
import { modalitySectionHtml } from './modalitySection.js';
import { judgeCheckSectionHtml } from './judgeCheckSection.js';
import { labelBasisLines } from './labelBasis.js';
import { conditionRows, pText, reportSections, type Interval } from './sections.js';
import { sectionTableHtml } from './sectionHtml.js';
import type { RunPlan } from '../runFiles/plan.js';
import type { StoredRunManifest } from '../runFiles/manifest.js';
import { SPAN_METRIC_HEADINGS, SPAN_RETRIEVAL_NOTE, spanMetricText, spanRetrievalCells } from './spanRetrieval.js';

export interface ReportInput {
  summary: RunSummary;
  records: RunItemRecord[];
  manifest: StoredRunManifest;
  /** The run's plan.json (estimate before the first answer): a "Plan against actual" section; runs without one have none. */
  plan?: RunPlan;
  /** Most questions shown in the drill-down (all conditions of each). */
  drillDownLimit?: number;
}

/** The note under a conditions table with a row marked † (its interval and p disagree about 0). */
function disagreementNote(summary: RunSummary, rows: ReturnType<typeof conditionRows>['models'][number]['rows']): string[] {
  const level = summary.bootstrap.confidence;
  return rows.some(({ diff: d }) => d && intervalDisagreesWithTest(d.ciLow, d.ciHigh, d.p, level)) ? [`<p class="meta">${esc(DISAGREEMENT_NOTE)}.</p>`] : [];
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Noto Sans CJK SC","PingFang SC",sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.3rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}td,th{border:1px solid #ddd;padding:.3rem .55rem;text-align:right;white-space:nowrap}
.scroll{overflow-x:auto;max-width:100%}svg{max-width:100%;height:auto}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.ci{color:#777;font-size:.8em}
.pos{color:#2a7a2a}.neg{color:#b22}.meta{color:#555;font-size:.9rem}
details{border:1px solid #e3e3e3;border-radius:4px;margin:.35rem 0;padding:.3rem .6rem}summary{cursor:pointer}
pre{white-space:pre-wrap;background:#f7f7f7;padding:.5rem;border-radius:4px;font-size:.85rem;max-height:24rem;overflow:auto}
.claim.ent{color:#1a6b1a}.claim.neu{color:#666}.claim.con{color:#b22}.claim.unk{color:#999}ul.claims{font-size:.85rem;margin:.2rem 0}.small-multiples{display:flex;flex-wrap:wrap;gap:.5rem}.small-multiples svg{width:49%;min-width:320px}
.detail{text-align:left;font-family:monospace;font-size:.8rem;word-break:break-all;white-space:normal}.refs a{margin-right:.3em}ol.retrieved{font-size:.85rem;columns:4;margin:.3rem 0}.chunk{border-left:3px solid #9ab;padding-left:.5rem;margin:.3rem 0;font-size:.85rem}.failed{color:#b22;font-weight:600}
`;

const JUDGE_BOOKKEEPING = /^judge/;

/** The run report: one self-contained HTML file (no scripts, no CDN; its figures are static SVG rendered from the Vega-Lite specs of `src/figures/`); every model-written string is escaped. */
export function renderReportHtml(input: ReportInput): string {
  const { summary, records, manifest } = input;
  const out: string[] = [];
  out.push(`<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>hisrag report: ${esc(summary.experiment)}</title><style>${STYLE}</style></head><body>`);
  out.push(`<h1>hisrag report: ${esc(summary.experiment)}</h1>`);
  out.push(`<p class="meta">${esc(describeManifest(manifest))}</p>`);
  out.push(renderComponents(manifest));
  out.push(
    `<p class="meta">${summary.totals.items} answers; ${summary.totals.scored} scored, ${summary.totals.generationFailed} generation failures and ${summary.totals.judgeFailed} judge failures (failures are excluded from means), ${summary.totals.empty ?? 0} empty answers. ` +
      `95% CIs: percentile bootstrap, ${summary.bootstrap.resamples} resamples, seed ${summary.bootstrap.seed}. Paired differences are taken against <b>${esc(summary.baseline)}</b> on the questions both conditions scored.</p>`,
  );

  out.push('<h2 id="depth">Score vs retrieval depth</h2>');
  for (const model of summary.models) {
    const spec = depthFigure(summary, model);
    const svg = spec && figureSvg(spec, { className: 'depth-chart', ariaLabel: `score vs k for ${model}` });
    out.push(`<h3>${esc(model)}</h3>`);
    out.push(svg ?? '<p class="meta">No retrieval conditions in this run.</p>');
    out.push(depthCurveTableHtml(summary, model));
  }

  // Per model that has the figure: its name and the figure.
  const charts = (figure: (s: RunSummary, model: string) => VegaLiteSpec | null, className: string, what: string) =>
    summary.models.flatMap((model) => {
      const spec = figure(summary, model);
      return spec ? [[model, figureSvg(spec, { className, ariaLabel: `${what} for ${model}` })] as const] : [];
    });
  const contextCharts = charts(contextFigure, 'context-chart', 'score vs context tokens');
  if (contextCharts.length) {
    out.push('<h2 id="context-tokens">Score vs context tokens</h2>');
    out.push('<p class="meta">Every retrieving condition at the mean tokens of the chunks placed in its prompts (cjk-estimate), one line per retriever, chunking and strategy (every factor that varies), so that chunkings of different chunk sizes share one axis; k and context budgets in panels of their own; closed-book as reference lines.</p>');
    for (const [model, svg] of contextCharts) out.push(`<h3>${esc(model)}</h3>`, svg, depthCurveTokensTableHtml(summary, model));
  }
  out.push(depthFamiliesHtml(summary));
  const grid = reportSections(summary).find((t) => t.section === 'chunking-depth');
  if (grid) out.push(`<h2 id="chunking-depth">Chunking × depth</h2>${sectionTableHtml({ ...grid, title: 'Mean score (mean context tokens) per chunking and depth' })}`);

  // A section of one figure per model that has it, under its heading and note (no section where none has it).
  const chartSection = (heading: string, note: string, ...figure: Parameters<typeof charts>) => {
    const found = charts(...figure);
    if (found.length) out.push(heading, `<p class="meta">${note}</p>`, ...found.map(([model, svg]) => `<h3>${esc(model)}</h3>${svg}`));
  };
  chartSection('<h2 id="cost">Score vs cost</h2>', 'Each condition at its mean cost per scored answer (retrieval calls and tokens are in the conditions table); error bars are 95% CIs. A method is worth its calls when it sits above and left of the others.', costFigure, 'cost-chart', 'score vs cost');
  chartSection('<h2 id="rerank-recall">Retrieval recall@k before and after reranking</h2>', 'Reranked retrievers: recall of the first-stage list cut at k (<code>firstStage.recall</code>) against recall of the reranked list cut at k (what the prompt got); items with gold evidence.', (s, model) => rerankRecallFigure(s, model), 'rerank-recall-chart', 'recall before and after reranking');

  out.push(...conditionsSectionHtml(summary));

  out.push(planVsActualHtml(input.plan, records));

  const groupKeys = [...new Set(summary.cells.flatMap((c) => Object.keys(c.byGroup)))].sort();
  if (groupKeys.length) out.push('<h2 id="groups">By category and type</h2>');
  for (const groupKey of groupKeys) {
    for (const model of summary.models) {
      const cells = summary.cells.filter((c) => c.model === model && c.byGroup[groupKey]);
      const values = [...new Set(cells.flatMap((c) => Object.keys(c.byGroup[groupKey]!)))].sort();
      if (!values.length) continue;
      out.push(`<h3>${esc(groupKey)} — ${esc(model)}</h3><div class="scroll"><table class="groups"><tr><th>condition</th>${values.map((v) => `<th>${esc(v)}</th>`).join('')}</tr>`);
      for (const cell of cells) {
        out.push(`<tr><td>${esc(cell.condition)}</td>${values.map((v) => { const m = cell.byGroup[groupKey]![v]; return `<td>${m ? `${meanCiHtml(m)} <span class="ci">n=${m.n}</span>` : '–'}</td>`; }).join('')}</tr>`);
      }
      out.push('</table></div>');
    }
  }

  out.push(modalitySectionHtml(summary));
  out.push(judgeCheckSectionHtml(summary.judgeCheck));

  // A row per model × condition, a column per metric (the cells are written as they are).
  const metricTable = <C extends RunSummary['cells'][number], M extends string>(heading: string, className: string, cells: C[], metrics: M[], head: (m: M) => string, value: (cell: C, m: M) => string) =>
    out.push(
      `${heading}<div class="scroll"><table class="${className}"><tr><th>model</th><th>condition</th>${metrics.map((m) => `<th>${esc(head(m))}</th>`).join('')}</tr>`,
      ...cells.map((cell) => `<tr><td>${esc(cell.model)}</td><td>${esc(cell.condition)}</td>${metrics.map((m) => `<td>${value(cell, m)}</td>`).join('')}</tr>`),
      '</table></div>',
    );
  const withRetrieval = summary.cells.filter((c) => c.retrieval);
  const retrievalMetrics = [...new Set(withRetrieval.flatMap((c) => Object.keys(c.retrieval!)))].sort();
  if (withRetrieval.length) metricTable('<h2 id="retrieval">Retrieval metrics (items with gold evidence)</h2>', 'retrieval', withRetrieval, retrievalMetrics, (m) => m, (cell, m) => num(cell.retrieval![m], 3));
  const spans = spanRetrievalCells(summary);
  if (spans.cells.length) {
    const heading = `<h2 id="span-retrieval">Span retrieval (chunking-independent)</h2><p class="meta">${esc(SPAN_RETRIEVAL_NOTE)}.</p>`;
    metricTable(heading, 'retrieval', spans.cells, spans.metrics, (m) => SPAN_METRIC_HEADINGS[m], (cell, m) => esc(spanMetricText(cell.spanRetrieval![m], m)));
  }
  // `extra` also carries judge bookkeeping (judgeStrayLines): that is not a text metric.
  const extras = [...new Set(summary.cells.flatMap((c) => Object.keys(c.extra)))].filter((key) => !JUDGE_BOOKKEEPING.test(key)).sort();
  if (extras.length) metricTable('<h2 id="text-metrics">Text metrics against reference answers</h2>', 'text-metrics', summary.cells, extras, (m) => m, (cell, m) => num(cell.extra[m], 3));

  // Why: help/hurt by evidence, claim metrics (when the run was diagnosed), and the noise studies.
  out.push(renderWhySection(summary, noiseStudyHtml(noiseStudy(records, summary, manifest))));

  out.push(renderDrillDown(records, summary, input.drillDownLimit ?? 300));
  out.push('</body></html>');
  return out.join('\n');
}

/** The conditions tables, one per model: mean, Δ against the baseline (and, with labels, the corrected Δ beside it), p, costs. */
function conditionsSectionHtml(summary: RunSummary): string[] {
  const out = ['<h2 id="conditions">Conditions</h2>'];
  const { priced, clustered, sampled, limited, noted, labelled, versusConditions, models } = conditionRows(summary);
  const correctedHead = labelled ? `<th>Δ corrected with labels (PPI++)${summary.judgeCheck!.synthetic ? ', <b>SYNTHETIC</b>' : ''} [95% CI]</th>` : '';
  // Repeated samples: the variance split and effective number of questions per cell.
  const samplingCells = (s: (typeof summary.cells)[number]['sampling']) =>
    s ? `<td>${num(s.between, 1)} / ${num(s.within, 1)} <span class="ci">(${(100 * s.samplingShare).toFixed(0)}% sampling)</span></td><td>${num(s.effectiveQuestions, 1)}</td>` : '<td>–</td><td>–</td>';
  for (const { model, rows } of models) {
    out.push(`<h3>${esc(model)}</h3><div class="scroll"><table class="conditions"><tr><th>condition</th><th>${esc(meanHeader(summaryMetric(summary).id))} [95% CI]</th><th>Δ vs ${esc(summary.baseline)} [95% CI]</th>${correctedHead}<th>P(Δ&gt;0)</th><th>p (Holm, BH)</th>${clustered ? '<th>design effect (mean / Δ)</th>' : ''}${sampled ? '<th>variance between / within questions</th><th>effective questions</th>' : ''}${versusConditions.map((v) => `<th>Δ vs ${esc(v)} [95% CI]</th>`).join('')}<th>scored / items</th><th>failed (gen / judge)</th><th>empty</th><th>truncated</th><th>retrievals / answer</th><th>generations / answer</th><th>tokens / answer</th><th>ms / answer</th>${priced ? '<th>price / answer</th>' : ''}${limited ? '<th>429s / answer</th><th>rate-limit wait ms / answer</th>' : ''}${noted ? '<th>method figures</th>' : ''}</tr>`);
    for (const { cell, diff: d, corrected, versus } of rows) {
      const cls = d?.meanDiff === null || d === undefined ? '' : d.meanDiff > 0 ? 'pos' : d.meanDiff < 0 ? 'neg' : '';
      out.push(
        `<tr><td>${esc(cell.condition)}</td><td>${meanCiHtml(cell.score)}</td><td class="${cls}">${d && d.meanDiff !== null ? `${signed(d.meanDiff)} <span class="ci">[${num(d.ciLow)}, ${num(d.ciHigh)}]</span>` : '–'}</td>${labelled ? `<td>${correctedCell(corrected?.ppiPlusPlus)}</td>` : ''}` +
          `<td>${d?.sharePositive === null || d === undefined ? '–' : num(d.sharePositive, 3)}</td><td>${d?.p == null ? '–' : `${pText(d.p)} <span class="ci">(${pText(d.pHolm)}, ${pText(d.pBH)})</span>${intervalDisagreesWithTest(d.ciLow, d.ciHigh, d.p, summary.bootstrap.confidence) ? ' †' : ''}`}</td>${clustered ? `<td>${cell.score.designEffect == null ? '–' : num(cell.score.designEffect, 1)} / ${d?.designEffect == null ? '–' : num(d.designEffect, 1)}</td>` : ''}${sampled ? samplingCells(cell.sampling) : ''}${versus.map((v) => `<td>${diffHtml(v)}</td>`).join('')}<td>${cell.scored} / ${cell.items}</td><td>${cell.failed.generation} / ${cell.failed.judge}</td><td>${cell.empty ?? 0}</td><td>${cell.truncatedItems}</td>${costCells(cell, priced)}${limited ? `<td>${num(cell.cost?.rateLimited ?? 0)}</td><td>${Math.round(cell.cost?.rateLimitWaitMs ?? 0)}</td>` : ''}${noted ? `<td>${esc(methodFigures(cell))}</td>` : ''}</tr>`,
      );
    }
    out.push('</table></div>', ...disagreementNote(summary, rows));
    if (labelled && summary.models[0] === model) out.push(`<p class="meta">${labelBasisLines(summary.judgeCheck!).map(esc).join(' ')} Every corrected figure: <a href="#judge-check">Judge checked against people</a>.</p>`);
    const family = summary.families?.find((f) => f.reference === summary.baseline && f.size > 0);
    if (family) out.push(`<p class="meta">p: paired sign-flip permutation test of Δ${summary.cluster ? `, whole clusters (${esc(summary.cluster)}) flipped together` : ''}; adjusted by Holm (family-wise error) and Benjamini–Hochberg (false discoveries) over the family: ${esc(family.name)}.</p>`);
    const sampling = summary.cells.find((c) => c.model === model && c.sampling)?.sampling;
    if (sampling) {
      out.push(
        `<p class="meta">Repeated samples (${num(sampling.samplesPerQuestion, sampling.samplesPerQuestion % 1 ? 1 : 0)} per question), reduced per question by their ${esc(sampling.reducer)}; intervals are two-stage bootstraps (${summary.cluster ? 'clusters' : 'questions'}, then samples within a question). Variance between / within: of one answer's score, between questions and within a question (the model's sampling); effective questions: independent, noise-free questions that would give the mean's variance.</p>`,
      );
    }
    const stray = summary.cells.filter((c) => c.model === model && (c.extra.judgeStrayLines ?? 0) > 0);
    if (stray.length) {
      out.push(`<p class="meta">Judge output lines that matched no rubric item (mean per answer; ignored when scoring): ${stray.map((c) => `${esc(c.condition)} ${num(c.extra.judgeStrayLines)}`).join(', ')}.</p>`);
    }
  }

  return out;
}

/** A corrected Δ with its interval, as the Δ column prints the judge-only one. */
function correctedCell(e: Interval | undefined): string {
  if (!e || e.estimate === null) return '–';
  return `${signed(e.estimate)} <span class="ci">[${num(e.ciLow)}, ${num(e.ciHigh)}]</span>`;
}

/** The cost columns of a condition row: means per scored answer (`*` marks estimated tokens). */
function costCells(cell: RunSummary['cells'][number], priced: boolean): string {
  const c = cell.cost;
  if (!c) return `<td>–</td><td>–</td><td>–</td><td>–</td>${priced ? '<td>–</td>' : ''}`;
  const tokens = `${Math.round(c.promptTokens + c.completionTokens)}${c.estimatedTokens ? '*' : ''} <span class="ci">(${Math.round(c.promptTokens)} in / ${Math.round(c.completionTokens)} out)</span>`;
  return `<td>${num(c.retrievalCalls, 1)}</td><td>${num(c.generationCalls, 1)}</td><td>${tokens}</td><td>${Math.round(c.durationMs)}</td>${priced ? `<td>${c.price === null ? '–' : num(c.price, 4)}</td>` : ''}`;
}

/** `retrieved 43% (6/14), steps 4.2` — a method's per-item figures, shares for flags. */
function methodFigures(cell: RunSummary['cells'][number]): string {
  return Object.entries(cell.method ?? {})
    .map(([name, f]) => (f.flag ? `${name} ${(100 * f.mean).toFixed(0)}% (${f.total}/${f.n})` : `${name} ${f.mean.toFixed(2)}`))
    .join(', ');
}

const describeManifest = (manifest: StoredRunManifest) =>
  (['runId', 'hisragVersion', 'gitCommit', 'startedAt', 'finishedAt'] as const).flatMap((key) => (manifest[key] == null ? [] : [`${key}: ${String(manifest[key])}`])).join(' · ');

/** The components of the run (generators, retrievers, judge, extractor) as a small table. */
function renderComponents(manifest: StoredRunManifest): string {
  const components = manifest.components;
  if (!components) return '';
  const { generators = {}, retrievers = {}, ...rest } = components;
  const describe = (value: unknown) => esc(typeof value === 'string' ? value : JSON.stringify(value));
  const row = (kind: string, label: string, value: unknown) => `<tr><td>${esc(kind)}</td><td>${esc(label)}</td><td class="detail">${describe(value)}</td></tr>`;
  const rows = [
    ...Object.entries(generators).map(([label, detail]) => row('generator', label, detail)),
    ...Object.entries(retrievers).map(([label, detail]) => row('retriever', label, detail)),
    ...Object.entries(rest).map(([kind, value]) => row(kind, '', value)),
  ];
  return `<details class="components"><summary>Components</summary><table class="components">${rows.join('')}</table></details>`;
}

/** Retrieved passages shown in the drill-down, each stored once and numbered in order of first appearance. */
class Passages {
  private readonly byId = new Map<string, { n: number; chunk: RunItemRecord['retrieved'][number] }>();

  ref(chunk: RunItemRecord['retrieved'][number]): number {
    let entry = this.byId.get(chunk.id);
    if (!entry) this.byId.set(chunk.id, (entry = { n: this.byId.size + 1, chunk }));
    return entry.n;
  }

  render(): string {
    if (this.byId.size === 0) return '';
    const out = [`<h2 id="passages">Passages</h2><p class="meta">Every passage retrieved for the questions above, once; the answers link here by number.</p>`];
    for (const { n, chunk } of this.byId.values()) {
      out.push(`<div class="chunk" id="p${n}"><b>P${n}</b> ${esc(chunk.title)}${chunk.page !== undefined ? ` p.${chunk.page}` : ''} <span class="ci">${esc(chunk.id)}</span><br>${esc(chunk.text)}</div>`);
    }
    return out.join('\n');
  }
}

/**
 * A prompt message, escaped, with its context block (`【资料1】…【资料结束】`) replaced by links to the
 * passages it holds, in prompt order — the passage texts are in the report once, not once per condition.
 * Entries whose text is not a retrieved passage verbatim (e.g. cut by the context budget) stay as they are.
 */
function promptWithPassageLinks(content: string, record: RunItemRecord, passages: Passages): string {
  const start = content.indexOf('【资料1】');
  const end = start < 0 ? -1 : content.indexOf(CONTEXT_END, start);
  if (start < 0 || end < 0) return esc(content);
  const byText = new Map(record.retrieved.map((chunk) => [chunk.text.trim(), chunk]));
  const entries = parseContextBlock(content.slice(start, end + CONTEXT_END.length));
  if (entries.length === 0 || entries.some((entry) => !byText.has(entry.text))) return esc(content);
  const links = entries.map((entry) => {
    const n = passages.ref(byText.get(entry.text)!);
    return `<a href="#p${n}">P${n}</a>`;
  });
  const block = `<span class="refs">【资料1–${entries.length}】 = ${links.join(' ')} ${esc(CONTEXT_END)}</span>`;
  return esc(content.slice(0, start)) + block + esc(content.slice(end + CONTEXT_END.length));
}

/** A multi-step method's steps: kind, label, query or response (shortened), passages, tokens, ms. */
function renderTrace(r: RunItemRecord): string {
  const rows = r.trace.map((step) => {
    const what = step.query ?? step.response ?? (step.detail ? Object.entries(step.detail).map(([k, v]) => `${k} ${v}`).join(', ') : '');
    const shown = what.length > 160 ? `${what.slice(0, 160)}…` : what;
    const passages = step.passages ? `${step.passages.length} passages` : '';
    const tokens = step.usage ? `${step.usage.promptTokens} + ${step.usage.completionTokens}${step.usageEstimated ? '*' : ''}` : '';
    return `<tr${step.error ? ' class="failed"' : ''}><td>${step.step}</td><td>${esc(step.kind)}</td><td>${esc(step.label)}</td><td>${esc(step.error ?? shown)}</td><td>${passages}</td><td>${tokens}</td><td>${Math.round(step.ms)}</td></tr>`;
  });
  return `<h4>Method trace (${r.trace.length} steps)</h4><div class="scroll"><table class="trace"><tr><th>#</th><th>kind</th><th>step</th><th>query / response</th><th>passages</th><th>tokens</th><th>ms</th></tr>${rows.join('')}</table></div>`;
}

/** Retrieved passages listed per answer (the prompt links every passage it holds; items.jsonl has all). */
const DRILL_DOWN_PASSAGES = 10;

function renderDrillDown(records: RunItemRecord[], summary: RunSummary, limit: number): string {
  const byQuestion = groupBy([...records].sort((a, b) => (a.key < b.key ? -1 : 1)), (r) => `${r.benchmark}:${r.itemId}`);
  const order = (r: RunItemRecord) => summary.models.indexOf(r.model) * 10_000 + summary.conditions.indexOf(r.condition);
  const passages = new Passages();
  const out: string[] = ['<h2 id="questions">Questions</h2>'];
  const keys = [...byQuestion.keys()];
  if (keys.length > limit) out.push(`<p class="meta">Showing the first ${limit} of ${keys.length} questions; every answer is in items.jsonl.</p>`);
  for (const key of keys.slice(0, limit)) {
    const list = byQuestion.get(key)!.sort((a, b) => order(a) - order(b));
    const first = list[0]!;
    out.push(`<details class="question"><summary><b>${esc(first.itemId)}</b> [${esc(first.category)}] ${esc(first.question.slice(0, 80))}${first.question.length > 80 ? '…' : ''}</summary>`);
    out.push(`<pre>${esc(first.question)}</pre>`);
    for (const r of list) {
      const status = r.score.status === 'scored' ? `score ${num(r.score.score)}` : `<span class="failed">${esc(r.score.status)}: ${esc(r.score.error ?? r.error ?? '')}</span>`;
      out.push(`<details class="answer"><summary>${esc(r.model)} · ${esc(r.condition)} · ${status}</summary>`);
      out.push(`<h4>Prompt</h4><pre>${r.prompt.map((m) => `[${esc(m.role)}]\n${promptWithPassageLinks(m.content, r, passages)}`).join('\n\n')}</pre>`);
      if (r.retrieved.length) {
        out.push(`<h4>Retrieved (${r.retrieved.length}; ${r.contextIds.length} in prompt${r.truncated ? `, ${r.truncated} dropped by the context budget` : ''})</h4><ol class="retrieved">`);
        for (const c of r.retrieved.slice(0, DRILL_DOWN_PASSAGES)) {
          // Number and score only: title, page and text are under the passage, stored once.
          const n = passages.ref(c);
          out.push(`<li><a href="#p${n}">P${n}</a> ${num(c.score, 3)}</li>`);
        }
        out.push('</ol>');
        if (r.retrieved.length > DRILL_DOWN_PASSAGES) out.push(`<p class="meta">… ${r.retrieved.length - DRILL_DOWN_PASSAGES} more in items.jsonl</p>`);
      }
      if ((r.trace?.length ?? 0) > 1) out.push(renderTrace(r));
      out.push(`<h4>Response</h4><pre>${esc(r.response?.raw ?? '(no response)')}</pre>`);
      if (r.score.extracted !== undefined) out.push(`<p>Extracted answer: <code>${esc(r.score.extracted)}</code></p>`);
      if (r.score.verdicts) {
        out.push(`<h4>Verdicts</h4><pre>${esc(Object.entries(r.score.verdicts).map(([k, v]) => `${k}: ${v}`).join('\n'))}</pre>`);
      }
      if (r.score.rule) out.push(`<p class="meta">Decided by rule: ${esc(r.score.rule)}</p>`);
      out.push(renderAnswerClaims(r, (chunk) => passages.ref(chunk)));
      out.push('</details>');
    }
    out.push('</details>');
  }
  out.push(passages.render());
  return out.join('\n');
}
