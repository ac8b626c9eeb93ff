import type { ExperimentConfig } from '../config/experiment.js';
import type { RunPlan } from '../runFiles/plan.js';
import { summaryOptionsOf } from '../results/loadRun.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import type { AnswerLabel } from '../runFiles/labels.js';
import { runFile } from '../runFiles/runDir.js';
import { summarizeRun } from '../analysis/summary.js';
import type { RunSummary } from '../runFiles/summary.js';
import { atomicWrite } from '../io/atomicWrite.js';
import { sectionCsv, summaryCsv } from '../report/csv.js';
import { reportSections } from '../report/sections.js';
import { rm } from 'node:fs/promises';
import { renderReportHtml } from '../report/html.js';
import { summaryTable } from '../report/table.js';
import type { StoredRunManifest } from '../runFiles/manifest.js';
import { writeRunSummary } from '../runFiles/summaryFile.js';
import { join } from 'node:path';
import { runFigureSpecs } from '../figures/runFigures.js';
import { groupBy } from '../diagnostics/groupBy.js';

/** The summary of what a run has done so far, by its config's scoring settings. */
export function summarizeRecords(config: ExperimentConfig, records: RunItemRecord[], models: string[], conditions: string[], labels: readonly AnswerLabel[] = [], labelInclusion?: ReadonlyMap<string, number>): RunSummary {
  return summarizeRun(records, { ...summaryOptionsOf(config, { models, conditions }, records), ...(labels.length ? { labels } : {}), ...(labelInclusion ? { labelInclusion } : {}) });
}

/** Writes summary.json, summary.csv, report.html and the figures' Vega-Lite specs (`figures/<name>.vl.json`); returns the report's path. */
export async function writeRunOutputs(runDir: string, run: { summary: RunSummary; records: RunItemRecord[]; manifest: StoredRunManifest; plan?: RunPlan | undefined }): Promise<string> {
  await writeRunSummary(runDir, run.summary);
  await atomicWrite(runFile(runDir, 'summaryCsv'), summaryCsv(run.summary));
  // The same sections as the LaTeX export and the report, one CSV each; a section that is gone goes with it.
  const tables = reportSections(run.summary);
  await rm(join(runDir, 'tables'), { recursive: true, force: true });
  for (const table of tables) await atomicWrite(join(runDir, 'tables', `${table.name}.csv`), sectionCsv(table));
  const reportPath = runFile(runDir, 'report');
  for (const { name, spec } of runFigureSpecs(run.summary)) await atomicWrite(join(runDir, 'figures', `${name}.vl.json`), JSON.stringify(spec, null, 1) + '\n');
  await atomicWrite(reportPath, renderReportHtml({ summary: run.summary, records: run.records, manifest: run.manifest, ...(run.plan ? { plan: run.plan } : {}) }));
  return reportPath;
}

/** What a finished (or stopped) run prints: the table, then what needs a word — fallbacks, failures, empty answers — and where the report is. */
export function runEndLines(config: ExperimentConfig, summary: RunSummary, records: RunItemRecord[], reportPath: string, withTable = true): string[] {
  const lines = withTable ? ['', summaryTable(summary), ''] : [];
  const fallbacks = summary.cells.reduce((n, cell) => n + cell.rerankFallbacks, 0);
  if (fallbacks > 0) lines.push(`${fallbacks} answers used the first-stage order because the reranker's ranking was unusable (rerankFallbacks in summary.json)`);
  lines.push(...failureLines(records));
  if (summary.totals.empty > 0) lines.push(`${summary.totals.empty} answers were empty (scored by the benchmark's rule, ${config.scoring.emptyAnswer === 'failed' ? 'recorded as failed' : 'counted as 0'}; "empty" column)`);
  lines.push(`report: ${reportPath}`);
  return lines;
}

/**
 * One line per condition with failed answers: how many, which questions (the first few) and the
 * first reason — so a failure (an endpoint's, a judge's, a saved-outputs file that omits items) is
 * named, not only counted in the table's `failed` column.
 */
export function failureLines(records: RunItemRecord[], shown = 5): string[] {
  const byCell = groupBy(records.filter((r) => r.score.status !== 'scored'), (r) => `${r.model} · ${r.condition}`);
  return [...byCell].map(([cell, list]) => {
    const ids = list.map((r) => r.itemId);
    const reason = (list[0]!.score.error ?? list[0]!.error ?? list[0]!.score.status).split('\n')[0];
    return `${cell}: ${list.length} failed, excluded from the mean (${ids.slice(0, shown).join(', ')}${ids.length > shown ? `, … ${ids.length - shown} more` : ''}): ${reason}`;
  });
}
