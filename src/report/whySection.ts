import { deltaText } from '../scoring/metrics.js';
import { CLAIM_METRICS, EVIDENCE_STATUSES, type ClaimMetric, type MatrixEntry, type RecordDiagnostics } from '../runFiles/diagnosis.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { CellSummary, RunSummary } from '../runFiles/summary.js';
import { escapeHtml as esc } from './escape.js';
import { CLAIM_METRIC_TITLES, claimMetricFigures, helpHurtFigure } from '../figures/runFigures.js';
import { figureSvg } from '../figures/render.js';
import { num, shareHtml, signed } from './htmlCells.js';

/**
 * The report's "Why" section: per model, helped and hurt items by evidence status, the claim metrics
 * per condition, and the metrics against k; `extra` (the noise studies' HTML) is placed here.
 */
export function renderWhySection(summary: RunSummary, extra = ''): string {
  const cells = summary.cells.filter((c) => c.diagnostics);
  if (!cells.length && !extra) return '';
  const out: string[] = ['<h2 id="why">Why retrieval helps or hurts</h2>'];
  const settings = summary.diagnostics ?? {};
  if (cells.length) {
    const claimModel = (c: unknown): Record<string, unknown> => (c && typeof c === 'object' ? { ...c } : {});
    const standIns = [settings.extractor, settings.checker].map(claimModel).filter((c) => c.standIn).map((c) => `${esc(c.name)}: ${esc(c.standIn)}`);
    const decomposed = cells.find((c) => c.diagnostics!.decomposition);
    const delta = decomposed ? ` (${esc(deltaText(decomposed.diagnostics!.decomposition!.delta, decomposed.metric))})` : '';
    out.push(
      `<p class="meta">Each condition against <b>${esc(settings.baseline ?? summary.baseline)}</b> on the questions both scored: helped when the score rose by at least δ, hurt when it fell by at least δ${delta}; a group's contribution is the sum of its differences ÷ n, so the three add up to Δ. ` +
        `Claim metrics are RAGChecker's (per answer, then the mean ×100 with 95% bootstrap CIs); prefilter <code>${esc(String(settings.prefilter ?? ''))}</code>${settings.prefilter !== 'none' ? `, top ${esc(String(settings.topChunks ?? ''))} passages per claim` : ' (all pairs)'}.` +
        (standIns.length ? ` <b>Offline stand-ins</b>: ${standIns.join('; ')}.` : '') +
        '</p>',
    );
  }
  for (const model of summary.models) {
    const mine = cells.filter((c) => c.model === model);
    if (!mine.length) continue;
    out.push(`<h3>${esc(model)}</h3>`);
    const decomposed = mine.filter((c) => c.diagnostics!.decomposition);
    if (decomposed.length) {
      out.push(figureSvg(helpHurtFigure(decomposed)!, { className: 'help-hurt-chart', ariaLabel: 'items hurt and helped per condition, by gold evidence' }));
      const withGold = decomposed.some((c) => c.diagnostics!.decomposition!.byEvidence);
      out.push(`<div class="scroll"><table class="decomposition"><tr><th>condition</th><th>n</th><th>helped</th><th>hurt</th><th>unchanged</th><th>Δ</th>${withGold ? '<th>hurt: gold in prompt</th><th>hurt: gold cut</th><th>hurt: gold not retrieved</th><th>hurt: best gold rank</th>' : ''}</tr>`);
      for (const cell of decomposed) {
        const d = cell.diagnostics!.decomposition!;
        const hurt = d.byEvidence?.hurt;
        const ranks = d.byGoldRank?.hurt ? Object.entries(d.byGoldRank.hurt).filter(([, g]) => g.n > 0).map(([bucket, g]) => `${bucket}: ${g.n}`).join(', ') : '';
        out.push(
          `<tr><td>${esc(cell.condition)}</td><td>${d.n}</td><td>${shareHtml(d.helped)}</td><td>${shareHtml(d.hurt)}</td><td>${shareHtml(d.unchanged)}</td><td>${signed(d.meanDiff)}</td>` +
            (withGold ? `<td>${hurt ? shareHtml(hurt.inPrompt!) : '–'}</td><td>${hurt ? shareHtml(hurt.retrievedNotInPrompt!) : '–'}</td><td>${hurt ? shareHtml(hurt.notRetrieved!) : '–'}</td><td>${esc(ranks || '–')}</td>` : '') + '</tr>',
        );
      }
      out.push('</table></div>');
      if (!withGold) out.push('<p class="meta">No question of this run names gold evidence, so helped and hurt items are not split by what retrieval found (LongHisDoc pages, <code>oracle</code> gold chunks or a benchmark’s evidence ids give that split).</p>');
    }
    const claimed = mine.filter((c) => Object.keys(c.diagnostics!.claims).length);
    if (claimed.length) {
      out.push(`<div class="scroll"><table class="claim-metrics"><tr><th>condition</th>${CLAIM_METRICS.map((m) => `<th>${esc(CLAIM_METRIC_TITLES[m])}</th>`).join('')}<th>checker calls / answer</th><th>RAGChecker all pairs</th><th>diagnosed</th></tr>`);
      for (const cell of claimed) {
        const d = cell.diagnostics!;
        out.push(
          `<tr><td>${esc(cell.condition)}</td>${CLAIM_METRICS.map((metric) => {
            const m = d.claims[metric];
            // A metric every check of failed still shows its count of failures.
            return `<td>${m ? `${num(m.mean, 1)} <span class="ci">[${num(m.ciLow, 1)}, ${num(m.ciHigh, 1)}]${m.failed ? ` ${m.failed} failed` : ''}</span>` : '–'}</td>`;
          }).join('')}<td>${num(d.checkerCalls, 1)}</td><td>${num(d.allPairsCalls, 1)}</td><td>${d.diagnosed}</td></tr>`,
        );
      }
      out.push('</table></div>');
      const charts = claimMetricFigures(summary, mine, model).map((f) => figureSvg(f.spec, { width: 520, className: 'claim-metric-chart', ariaLabel: `${CLAIM_METRIC_TITLES[f.metric]} vs k for ${model}` }));
      if (charts.length) out.push(`<details class="claim-charts" open><summary>Claim metrics against k, per method</summary><div class="small-multiples">${charts.join('\n')}</div></details>`);
    }
  }
  if (extra) out.push(extra);
  return out.join('\n');
}

const LABEL_CLASS: Record<string, string> = { entailment: 'ent', neutral: 'neu', contradiction: 'con' };

/**
 * One answer's claims in the drill-down: the response's claims coloured by their label against the
 * gold answer (entailed = correct), each with the passages that entail it; the gold claims coloured
 * by whether the response states them, with the passages that state them. `ref` numbers a passage
 * (the report stores each passage once).
 */
export function renderAnswerClaims(record: RunItemRecord & { diagnostics?: RecordDiagnostics }, ref: (chunk: RunItemRecord['retrieved'][number]) => number): string {
  const d = record.diagnostics;
  if (!d) return '';
  const byId = new Map(record.retrieved.map((chunk) => [chunk.id, chunk]));
  const supporting = (row: MatrixEntry[] | undefined) =>
    (row ?? [])
      .flatMap((label, j) => (label === 'entailment' && byId.has(d.contextIds[j]!) ? [byId.get(d.contextIds[j]!)!] : []))
      .map((chunk) => {
        const n = ref(chunk);
        return `<a href="#p${n}">P${n}</a>`;
      })
      .join(' ');
  const item = (claim: string, label: MatrixEntry, row: MatrixEntry[] | undefined) =>
    `<li class="claim ${label ? LABEL_CLASS[label] : 'unk'}">${esc(claim)} <span class="ci">${esc(label ?? 'not checked')}</span>${supporting(row) ? ` <span class="refs">← ${supporting(row)}</span>` : ''}</li>`;
  const metrics = Object.entries(d.metrics)
    .map(([name, value]) => `${esc(CLAIM_METRIC_TITLES[name as ClaimMetric] ?? name)} ${value === null ? 'failed' : (100 * value!).toFixed(0)}`)
    .join(' · ');
  const failed = d.failed.length ? `<p class="failed">${d.failed.length} checks failed: ${esc(d.failed.slice(0, 3).map((f) => `${f.what}${f.claim !== undefined ? `[${f.claim}]` : ''}: ${f.error}`).join('; '))}</p>` : '';
  const evidence = d.evidence ? `<p class="meta">gold evidence: ${esc(d.evidence.status)}${d.evidence.bestRank !== null ? `, best rank ${d.evidence.bestRank}` : ''}</p>` : '';
  return (
    `<h4>Claims</h4><p class="meta">${metrics}</p>${evidence}${failed}` +
    `<p class="meta">Response claims (against the gold answer; ← passages that entail them):</p><ul class="claims">${d.responseClaims.map((c, i) => item(c, d.labels.responseVsGold[i] ?? null, d.labels.responseVsChunks[i])).join('')}</ul>` +
    `<p class="meta">Gold claims (${esc(d.goldClaimsFrom)}; stated by the response? ← passages that entail them):</p><ul class="claims">${d.goldClaims.map((c, i) => item(c, d.labels.goldVsResponse[i] ?? null, d.labels.goldVsChunks[i])).join('')}</ul>`
  );
}
