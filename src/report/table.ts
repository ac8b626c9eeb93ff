import type { JudgeCheckSummary, RunSummary } from '../runFiles/summary.js';
import { deltaText, meanHeader, summaryMetric } from '../scoring/metrics.js';
import { intervalDisagreesWithTest } from '../analysis/compare.js';
import { num, signed } from './htmlCells.js';
import { labelBasisLines } from './labelBasis.js';
import { cellText, conditionRows, judgeCheckSections, pText, reportSections, type Interval, type SectionTable } from './sections.js';
import { modalityLines } from './modalitySection.js';
import { SPAN_METRIC_HEADINGS, SPAN_RETRIEVAL_NOTE, spanMetricText, spanRetrievalCells } from './spanRetrieval.js';

type Cell = RunSummary['cells'][number];
type Paired = RunSummary['paired'][number];

/**
 * Display width in a terminal, per code point: CJK and full-width characters take two columns —
 * the basic plane's blocks and planes 2 and 3 (CJK Extensions B to H and the compatibility
 * supplement, U+20000–U+3FFFD, which historical texts hold), as Unicode's East Asian Width has them.
 */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    const point = ch.codePointAt(0)!;
    w += (point >= 0x20000 && point <= 0x3fffd) || /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
  }
  return w;
}

export function renderTextTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  // Numbers (and CIs, differences) are right-aligned; names are left-aligned.
  const numeric = header.map((_, i) => i > 0 && rows.every((r) => /^([-+–\d[]|$)/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? ' '.repeat(widths[i]! - displayWidth(c)) + c : c + ' '.repeat(widths[i]! - displayWidth(c))))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** One line per condition whose method reported figures (adaptive's share that retrieved, ircot's steps …). */
function methodFigureLines(summary: RunSummary): string[] {
  const lines: string[] = [];
  for (const cell of summary.cells) {
    const figures = Object.entries(cell.method ?? {});
    if (!figures.length) continue;
    const shown = figures.map(([name, f]) => {
      return f.flag ? `${name} ${(100 * f.mean).toFixed(0)}% (${f.total}/${f.n})` : `${name} ${num(f.mean)} per answer`;
    });
    lines.push(`${summary.models.length > 1 ? `${cell.model} ` : ''}${cell.condition}: ${shown.join(', ')}`);
  }
  return lines;
}

/** The test of a difference: p, then Holm- and BH-adjusted over its family; † when its interval says otherwise about 0. */
const testText = (d: Paired | undefined, level: number) => (d?.p == null ? '–' : `${pText(d.p)} (${pText(d.pHolm)}, ${pText(d.pBH)})${intervalDisagreesWithTest(d.ciLow, d.ciHigh, d.p, level) ? ' †' : ''}`);

/** The note under a table whose rows carry †. */
export const DISAGREEMENT_NOTE =
  '† the bootstrap CI of Δ and the sign-flip p disagree about 0: the p-value is exact, the percentile bootstrap too narrow with few questions or clusters — read Δ as not established at this level when p is the larger';

const diffText = (d: Paired | undefined) => (d && d.meanDiff !== null ? `${signed(d.meanDiff)} [${num(d.ciLow)}, ${num(d.ciHigh)}]` : '–');

/** Whether the summary's baseline is one of its conditions: a summary written before baselines were resolved may name one its run lacks, and no header names it then. */
const hasBaseline = (summary: RunSummary): boolean => summary.cells.some((c) => c.condition === summary.baseline);

/**
 * The run's headline table: one row per condition, per model the mean score with its 95% CI,
 * the paired difference against the baseline, and how many items were scored / failed / empty.
 */
export function summaryTable(summary: RunSummary): string {
  const blocks: string[] = [];
  const { priced, clustered, tested, sampled, labelled, versusConditions, models } = conditionRows(summary);
  const metric = summaryMetric(summary);
  const baselined = hasBaseline(summary);
  for (const { model, rows } of models) {
    const lines = rows.map(({ cell, diff, corrected, versus }) => [
      cell.condition,
      num(cell.score.mean),
      cell.score.mean === null ? '–' : `[${num(cell.score.ciLow)}, ${num(cell.score.ciHigh)}]`,
      ...(clustered ? [`${num(cell.score.designEffect, 1)} / ${num(diff?.designEffect, 1)}`] : []),
      ...(baselined ? [diffText(diff)] : []),
      ...(labelled && baselined ? [withInterval(corrected?.ppiPlusPlus ?? null, 2, true)] : []),
      ...(tested && baselined ? [testText(diff, summary.bootstrap.confidence)] : []),
      ...(sampled ? samplingColumns(cell.sampling) : []),
      ...versus.map(diffText),
      num(cell.retrieval?.recall, 3),
      num(cell.cost?.retrievalCalls, 1),
      cell.cost ? `${Math.round(cell.cost.promptTokens + cell.cost.completionTokens)}${cell.cost.estimatedTokens ? '*' : ''}` : '–',
      ...(priced ? [num(cell.cost?.price, 4)] : []),
      `${cell.scored}/${cell.items}`,
      String(cell.failed.generation + cell.failed.judge),
      String(cell.empty),
    ]);
    blocks.push(
      `model: ${model}\n` +
        renderTextTable(['condition', meanHeader(metric.id), '95% CI', ...(clustered ? ['deff'] : []), ...(baselined ? [`Δ vs ${summary.baseline} [95% CI]`] : []), ...(labelled && baselined ? [`Δ corrected with labels (PPI++)${summary.judgeCheck!.synthetic ? ', SYNTHETIC' : ''}`] : []), ...(tested && baselined ? ['p (Holm, BH)'] : []), ...(sampled ? ['var between / within (sampling share)', 'n_eff'] : []), ...versusConditions.map((v) => `Δ vs ${v} [95% CI]`), 'recall', 'retrievals', 'tokens', ...(priced ? ['price'] : []), 'scored', 'failed', 'empty'], lines),
    );
  }
  const notes = [...(baselined ? [] : [`no Δ column: the baseline ${summary.baseline} is not a condition of this run`]), ...statisticsNotes(summary)];
  if (notes.length) blocks.push(notes.join('\n'));
  const curves = depthCurveLines(summary);
  if (curves.length) blocks.push(curves.join('\n'));
  for (const grid of reportSections(summary).filter((t) => t.section === 'chunking-depth')) blocks.push(sectionText(grid));
  for (const family of depthFamilyTables(summary)) blocks.push(family);
  const spans = spanRetrievalCells(summary);
  if (spans.cells.length) {
    const rows = spans.cells.map((cell) => [`${summary.models.length > 1 ? `${cell.model} ` : ''}${cell.condition}`, ...spans.metrics.map((metric) => spanMetricText(cell.spanRetrieval![metric], metric))]);
    blocks.push(`${renderTextTable(['condition', ...spans.metrics.map((metric) => SPAN_METRIC_HEADINGS[metric])], rows)}\n${SPAN_RETRIEVAL_NOTE}`);
  }
  if (summary.cells.some((c) => c.cost?.estimatedTokens)) {
    blocks.push('retrievals, tokens (prompt + completion) and price: means per scored answer; * tokens estimated (cjk-estimate) where the endpoint reported no usage');
  }
  const limited = summary.cells.filter((c) => c.cost?.rateLimited !== undefined && (c.cost.rateLimited > 0 || (c.cost.rateLimitWaitMs ?? 0) > 0));
  if (limited.length) {
    blocks.push(
      `rate limits (per answer): ${limited.map((c) => `${summary.models.length > 1 ? `${c.model} ` : ''}${c.condition} ${num(c.cost!.rateLimited!)} 429s, ${Math.round(c.cost!.rateLimitWaitMs ?? 0)} ms waiting`).join('; ')}`,
    );
  }
  const batched = summary.cells.filter((c) => (c.cost?.batchedCalls ?? 0) > 0);
  if (batched.length) {
    blocks.push(
      `batch API (calls per answer answered by batches, priced at the batch rate): ${batched.map((c) => `${summary.models.length > 1 ? `${c.model} ` : ''}${c.condition} ${num(c.cost!.batchedCalls!)} of ${num(c.cost!.generationCalls)}`).join('; ')}`,
    );
  }
  const modalities = modalityLines(summary);
  if (modalities.length) blocks.push(`image input against OCR input (paired Δ [95% CI]):\n${modalities.join('\n')}`);
  const figures = methodFigureLines(summary);
  if (figures.length) blocks.push(figures.join('\n'));
  const diagnostics = diagnosticsTables(summary);
  if (diagnostics) blocks.push(diagnostics);
  // With human labels beside the answers: the judge checked against them, corrected figures beside the judge-only ones.
  if (summary.judgeCheck) blocks.push(judgeCheckTables(summary.judgeCheck));
  return blocks.join('\n\n');
}

/** A cell's variance split and effective number of questions (repeated samples). */
function samplingColumns(sampling: Cell['sampling']): string[] {
  if (!sampling) return ['–', '–'];
  return [`${num(sampling.between, 1)} / ${num(sampling.within, 1)} (${(100 * sampling.samplingShare).toFixed(0)}%)`, num(sampling.effectiveQuestions, 1)];
}

/** What the CI, deff and p columns are: the clusters, the test, the family the adjustment ran over. */
function statisticsNotes(summary: RunSummary): string[] {
  const lines: string[] = [];
  const sampling = summary.cells.find((c) => c.sampling)?.sampling;
  if (sampling) {
    const counts = [...new Set(summary.cells.map((c) => c.sampling?.samplesPerQuestion).filter((n) => n !== undefined).map((n) => num(n!, n! % 1 ? 1 : 0)))];
    lines.push(
      `repeated samples: ${counts.join('/')} per question, reduced by their ${sampling.reducer}; CIs are two-stage bootstraps (${summary.cluster ? 'clusters' : 'questions'}, then samples within a question); ` +
        `var between / within: variance of one answer's score between questions and within a question (the model's sampling), with the sampling share of a question's score; ` +
        `n_eff: independent noise-free questions giving the same variance of the mean`,
    );
  }
  const clusters = Math.max(0, ...summary.cells.map((c) => c.score.clusters ?? 0));
  if (summary.cluster) {
    lines.push(`95% CIs and tests resample clusters (${summary.cluster}: up to ${clusters} per condition); deff: design effect of the mean / of Δ (clustered ÷ per-question variance)`);
  }
  const family = hasBaseline(summary) ? summary.families?.find((f) => f.reference === summary.baseline && f.size > 0) : undefined;
  if (family) lines.push(`p: paired sign-flip permutation test of Δ vs ${summary.baseline}${summary.cluster ? ' (clusters flipped whole)' : ''}; Holm and BH adjusted over the family: ${family.name}`);
  if (summary.paired.some((d) => intervalDisagreesWithTest(d.ciLow, d.ciHigh, d.p, summary.bootstrap.confidence))) lines.push(DISAGREEMENT_NOTE);
  return lines;
}

/** One line per depth curve (slope, best depth with every P(best), deepest − best), and under it the same against tokens. */
function depthCurveLines(summary: RunSummary): string[] {
  const curves = summary.depthCurves ?? [];
  if (!curves.length) return [];
  const lines = [
    `depth curves (paired over the questions scored at every depth${summary.cluster ? `, clustered by ${summary.cluster}` : ''}): slope per ln k (per ln budget for budgets in tokens) [95% CI]; best k = the k with the highest P(best) (bootstrap share of resamples in which it has the highest mean); deepest − best [95% CI]; ` +
      'against tokens: the same curve over the mean context tokens of each depth (the axis chunkings share), slope per ln tokens [95% CI], best ≈ its tokens',
  ];
  for (const c of curves) {
    const budget = c.unit === 'contextTokens';
    const at = (d: number) => (budget ? `${d}tok` : `k=${d}`);
    const name = `${summary.models.length > 1 ? `${c.model} ` : ''}${c.strategy}${c.retriever ? `·${c.retriever}` : ''}${budget ? ' (budgets)' : ''}`;
    const probabilities = c.depths.map((k, i) => `${k}:${c.probabilityBest[i]!.toFixed(2)}`).join(' ');
    const deepest = c.depths[c.depths.length - 1]!;
    const gap = c.deepestMinusBest;
    const tail =
      c.bestK === deepest
        ? 'the deepest is best'
        : `${at(deepest)} − ${at(c.bestK)}: ${signed(gap.estimate)} [${num(gap.ciLow)}, ${num(gap.ciHigh)}], ${c.deepestBelowBest ? 'deepest below best' : 'deepest not clearly below best'}`;
    lines.push(`  ${name}: slope ${signed(c.slope.estimate)} [${num(c.slope.ciLow)}, ${num(c.slope.ciHigh)}]; best ${at(c.bestK)} (P(best) ${probabilities}); ${tail} (n=${c.n})`);
    const t = c.againstTokens;
    if (t) {
      const best = c.depths.indexOf(c.bestK);
      lines.push(`    against tokens${c.corpus ? ` (chunking ${c.corpus})` : ''}, means ${t.tokens.map((x) => Math.round(x)).join(', ')}: slope per ln tokens ${signed(t.slope.estimate)} [${num(t.slope.ciLow)}, ${num(t.slope.ciHigh)}]; best ≈ ${Math.round(t.bestTokens)} tokens (P(best) ${t.probabilityBest[best]!.toFixed(2)})`);
    }
  }
  return lines;
}

/** Per depth family (depth steps, chunkings at equal context): its name, then one row per comparison with Δ, its interval, p and the adjusted p. */
function depthFamilyTables(summary: RunSummary): string[] {
  return (summary.families ?? [])
    .filter((f) => f.kind !== undefined)
    .map((family) => {
      const rows = (summary.depthComparisons ?? [])
        .filter((d) => d.family === family.name)
        .map((d) => [`${summary.models.length > 1 ? `${d.model} ` : ''}${d.condition} − ${d.baseline}`, diffText(d), testText(d, summary.bootstrap.confidence), String(d.n)]);
      return `${family.name}; p: paired sign-flip test, Holm and BH adjusted over the family\n${renderTextTable(['comparison', 'Δ [95% CI]', 'p (Holm, BH)', 'n'], rows)}`;
    });
}

/** Short names of the claim metrics for the terminal (RAGChecker's order). */
const CLAIM_COLUMNS: [string, string][] = [
  ['precision', 'prec'],
  ['recall', 'rec'],
  ['f1', 'f1'],
  ['claimRecall', 'claim rec'],
  ['contextPrecision', 'ctx prec'],
  ['contextUtilization', 'ctx util'],
  ['noiseSensitivityRelevant', 'noise rel'],
  ['noiseSensitivityIrrelevant', 'noise irr'],
  ['hallucination', 'halluc'],
  ['selfKnowledge', 'self-know'],
  ['faithfulness', 'faithful'],
];

/** The diagnostics' tables: help/hurt per condition (by what became of the gold), and RAGChecker's claim metrics. */
export function diagnosticsTables(summary: RunSummary): string {
  const cells = summary.cells.filter((c) => c.diagnostics);
  if (!cells.length) return '';
  const blocks: string[] = [];
  const settings = (summary.diagnostics ?? {}) as { baseline?: string; prefilter?: string; topChunks?: number; checker?: { name?: string; standIn?: string }; extractor?: { name?: string; standIn?: string } };
  for (const model of summary.models) {
    const mine = cells.filter((c) => c.model === model);
    const decomposed = mine.filter((c) => c.diagnostics!.decomposition);
    if (decomposed.length) {
      const withGold = decomposed.some((c) => c.diagnostics!.decomposition!.byEvidence);
      const rows = decomposed.map((c) => {
        const d = c.diagnostics!.decomposition!;
        const hurtBy = d.byEvidence?.hurt;
        return [
          c.condition,
          `${d.helped.n} (${signed(d.helped.contribution)})`,
          `${d.hurt.n} (${signed(d.hurt.contribution)})`,
          `${d.unchanged.n} (${signed(d.unchanged.contribution)})`,
          signed(d.meanDiff),
          ...(withGold ? [hurtBy ? `${hurtBy.inPrompt.n} / ${hurtBy.retrievedNotInPrompt.n} / ${hurtBy.notRetrieved.n} / ${d.hurt.n - hurtBy.inPrompt.n - hurtBy.retrievedNotInPrompt.n - hurtBy.notRetrieved.n}` : '–'] : []),
          String(d.n),
        ];
      });
      const delta = decomposed[0]!.diagnostics!.decomposition!.delta;
      blocks.push(
        `why (model: ${model}; vs ${decomposed[0]!.diagnostics!.decomposition!.baseline}, ${deltaText(delta, decomposed[0]!.metric)}): items helped / hurt / unchanged (contribution to Δ)\n` +
          renderTextTable(['condition', 'helped', 'hurt', 'unchanged', 'Δ', ...(withGold ? ['hurt: gold in prompt / cut / not retrieved / no gold'] : []), 'n'], rows) +
          (withGold ? '\ncut: gold retrieved but not in the final prompt (context budget, refiner, method); no gold: the question names no evidence (e.g. unanswerable)' : ''),
      );
    }
    const claimed = mine.filter((c) => Object.keys(c.diagnostics!.claims).length);
    if (claimed.length) {
      const rows = claimed.map((c) => {
        const d = c.diagnostics!;
        return [
          c.condition,
          ...CLAIM_COLUMNS.map(([name]) => {
            const m = d.claims[name as keyof typeof d.claims];
            return m ? `${num(m.mean, 1)}${m.failed ? `(${m.failed}✗)` : ''}` : '–';
          }),
          d.checkerCalls === null ? '–' : `${num(d.checkerCalls, 1)} / ${num(d.allPairsCalls, 1)}`,
        ];
      });
      blocks.push(
        `claim diagnostics (model: ${model}; RAGChecker's metrics ×100, per answer then mean; checker calls per answer / RAGChecker's all pairs)\n` +
          renderTextTable(['condition', ...CLAIM_COLUMNS.map(([, short]) => short), 'checks / all-pairs'], rows),
      );
    }
  }
  const standIns = [settings.extractor, settings.checker].filter((c) => c?.standIn).map((c) => `${c!.name}: ${c!.standIn}`);
  if (standIns.length) blocks.push(`claims from offline stand-ins — ${standIns.join('; ')}`);
  return blocks.join('\n\n');
}

// The judge checked against people (summary.json's `judgeCheck`).

/** `estimate [low, high]` of an interval that may be undefined (–), signed for a difference. */
export const withInterval = (e: Interval | null, digits: number, sign = false) => cellText({ kind: 'interval', head: '', csv: '', digits, sign }, e);

/** A section's table as the terminal prints it: its title, the table, its note. */
export function sectionText(table: SectionTable): string {
  const rows = table.rows.map((row) => table.columns.map((c, i) => cellText(c, row[i] ?? null)));
  return `${table.title}:\n${renderTextTable(table.columns.map((c) => c.head), rows)}\n${table.note}`;
}

/** `hisrag judges` and `hisrag report`: the judge checked against people, as text tables (summary.json's `judgeCheck`). */
export function judgeCheckTables(check: JudgeCheckSummary | undefined): string {
  if (!check) return 'No human labels in this run (labels/<annotator>.jsonl): nothing to check the judge against.';
  const parts = [labelBasisLines(check).join('\n'), ...judgeCheckSections(check).map(sectionText)];
  const cautions = [...check.means, ...check.differences].flatMap((r) => (r.caution?.length ? [`${r.model} · ${r.condition}${'baseline' in r ? ` − ${r.baseline}` : ''}: ${r.caution.join(', ')}`] : []));
  if (cautions.length) parts.push(`Caution (few-labels: under 10 labelled questions; few-clusters: labels in under 5 clusters; labels-all-equal: the interval is a Clopper–Pearson bound, every label the same):\n  ${cautions.join('\n  ')}`);
  return parts.join('\n\n');
}
