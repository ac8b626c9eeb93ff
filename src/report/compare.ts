import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { DataFileError } from '../errors.js';
import { formatZodIssues } from '../config/errors.js';
import { assertRunDirectory, runFile } from '../experiment/runDirectory.js';
import { RunSummarySchema, type RunSummary } from '../experiment/summary.js';
import { renderTextTable } from './table.js';

export interface ComparisonRow {
  model: string;
  condition: string;
  a: { mean: number | null; ciLow: number | null; ciHigh: number | null; n: number } | null;
  b: { mean: number | null; ciLow: number | null; ciHigh: number | null; n: number } | null;
  /** b − a, when both runs scored the cell. */
  diff: number | null;
}

export async function readRunSummary(runDir: string): Promise<RunSummary> {
  assertRunDirectory(runDir);
  const path = runFile(runDir, 'summary');
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new DataFileError(`${path}: cannot read the run summary (${(error as Error).message}); run \`hisrag report ${runDir}\` first`);
  }
  const parsed = RunSummarySchema.safeParse(value);
  if (!parsed.success) throw new DataFileError(`${path}: ${formatZodIssues(parsed.error)}`);
  return parsed.data;
}

/** Two runs side by side, matched by model label and condition name. */
export async function compareRuns(runA: string, runB: string): Promise<{ rows: ComparisonRow[]; text: string }> {
  const [a, b] = await Promise.all([readRunSummary(runA), readRunSummary(runB)]);
  const keys: [string, string][] = [];
  const seen = new Set<string>();
  for (const s of [a, b]) {
    for (const cell of s.cells) {
      const key = `${cell.model}\u0000${cell.condition}`;
      if (!seen.has(key)) {
        seen.add(key);
        keys.push([cell.model, cell.condition]);
      }
    }
  }
  const pick = (s: RunSummary, model: string, condition: string) => {
    const cell = s.cells.find((c) => c.model === model && c.condition === condition);
    return cell ? { mean: cell.score.mean, ciLow: cell.score.ciLow, ciHigh: cell.score.ciHigh, n: cell.score.n } : null;
  };
  const rows: ComparisonRow[] = keys.map(([model, condition]) => {
    const ra = pick(a, model, condition);
    const rb = pick(b, model, condition);
    const diff = ra?.mean != null && rb?.mean != null ? rb.mean - ra.mean : null;
    return { model, condition, a: ra, b: rb, diff };
  });
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(2));
  const cell = (r: ComparisonRow['a']) => (r ? `${f(r.mean)} [${f(r.ciLow)}, ${f(r.ciHigh)}] n=${r.n}` : '–');
  const text = renderTextTable(
    ['model', 'condition', `A: ${basename(runA)}`, `B: ${basename(runB)}`, 'B − A'],
    rows.map((r) => [r.model, r.condition, cell(r.a), cell(r.b), r.diff === null ? '–' : `${r.diff >= 0 ? '+' : ''}${f(r.diff)}`]),
  );
  return { rows, text };
}
