import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { judgeCheckOf } from '../analysis/summary.js';
import { LABELS_DIR } from '../runFiles/labels.js';
import { runFile } from '../runFiles/runDir.js';
import type { RunSummary } from '../runFiles/summary.js';
import { readRunSummaryFile } from '../runFiles/summaryFile.js';
import { loadRun, readRunInputs, summaryOptionsOf } from '../results/loadRun.js';
import { writeRunOutputs } from './runOutputs.js';

/** `hisrag report`: re-reads a run directory and rewrites summary.json, summary.csv and report.html. */
export async function regenerateReport(runDir: string): Promise<{ summary: RunSummary; reportPath: string }> {
  // The results API reads runs for notebooks too: one reader, one summary, for every consumer.
  const run = await loadRun(runDir);
  const reportPath = await writeRunOutputs(run.dir, run);
  return { summary: run.summary, reportPath };
}

/** What refreshing a run's outputs after its labels changed did: the files rewritten, or why there were none to rewrite. */
export type LabelRefresh = { refreshed: true; reportPath: string; judgeCheck: RunSummary['judgeCheck'] } | { refreshed: false; reason: string };

/**
 * After labels are imported or saved: summary.json's judge check recomputed from the records and
 * every label file, the rest of the summary kept as written (its bootstrap is not rerun), and
 * summary.csv, the section tables, the figures' specs and report.html rewritten from it — so that
 * every surface that reads the run's files (the viewer, `hisrag export --latex`) shows the labels at
 * once. A run with no summary.json yet has nothing to refresh: it writes one, labels included, when
 * it finishes.
 */
export async function refreshLabelledOutputs(dir: string): Promise<LabelRefresh> {
  const { runDir, config, manifest, records, labels, labelInclusion, plan } = await readRunInputs(dir);
  const stored = await readRunSummaryFile(runDir);
  if (!stored) return { refreshed: false, reason: `${runDir}: no summary.json yet; the run writes it, labels included, when it finishes (or \`hisrag report ${runDir}\`)` };
  const options = { ...summaryOptionsOf(config, manifest, records), ...(labels.length ? { labels } : {}), ...(labelInclusion ? { labelInclusion } : {}) };
  const { judgeCheck } = judgeCheckOf(records, options);
  const { judgeCheck: _before, ...rest } = stored;
  const summary: RunSummary = { ...rest, ...(judgeCheck ? { judgeCheck } : {}) };
  const reportPath = await writeRunOutputs(runDir, { summary, records, manifest, ...(plan ? { plan } : {}) });
  return { refreshed: true, reportPath, judgeCheck };
}

/**
 * Whether summary.json is older than a label file of the run: its judge check (and what is written
 * from it) then does not show every label. Null when current or without labels; else the message
 * that says so and how to refresh.
 */
export async function staleLabelsNote(runDir: string): Promise<string | null> {
  const summaryAt = await stat(runFile(runDir, 'summary')).then((s) => s.mtimeMs, () => null);
  const files = await readdir(join(runDir, LABELS_DIR)).catch(() => [] as string[]);
  const labelled = await Promise.all(files.filter((f) => f.endsWith('.jsonl')).map((f) => stat(join(runDir, LABELS_DIR, f)).then((s) => s.mtimeMs, () => 0)));
  if (!labelled.length || summaryAt === null || Math.max(...labelled) <= summaryAt) return null;
  return `labels changed after summary.json was written: its judge check and corrected figures do not show them (refresh: hisrag report ${runDir})`;
}
