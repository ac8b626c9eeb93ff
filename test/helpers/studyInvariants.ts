import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import type { RunSummary } from '../../src/runFiles/summary.js';

/** Every model × condition other than the baseline has a Δ against it, and the baseline is a condition of the run. */
export function deltaProblems(summary: RunSummary, terminal: string): string[] {
  const problems: string[] = [];
  if (!summary.conditions.includes(summary.baseline)) problems.push(`summary.json: baseline "${summary.baseline}" is not a condition of the run (${summary.conditions.join(', ')})`);
  // Whatever follows "Δ vs " starts with a condition's name.
  for (const header of terminal.matchAll(/Δ vs (.{0,40})/g)) {
    if (!summary.conditions.some((c) => header[1]!.startsWith(c))) problems.push(`terminal: "Δ vs ${header[1]!.split(/[\s;,]/)[0]}" names no condition of the run`);
  }
  for (const cell of summary.cells) {
    if (cell.condition === summary.baseline || cell.score.mean === null) continue;
    const d = summary.paired.find((p) => p.model === cell.model && p.condition === cell.condition);
    if (!d || d.meanDiff === null) problems.push(`summary.json: ${cell.model} · ${cell.condition} has no Δ against ${summary.baseline}`);
  }
  return problems;
}

/** Per question, the mean score of its scored answers (over samples) in one model × condition. */
function questionMeans(records: RunItemRecord[], model: string, condition: string): Map<string, number> {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of records) {
    if (r.model !== model || r.condition !== condition || r.score.status !== 'scored' || r.score.score === null) continue;
    const s = sums.get(r.itemId) ?? { sum: 0, n: 0 };
    s.sum += r.score.score;
    s.n += 1;
    sums.set(r.itemId, s);
  }
  return new Map([...sums].map(([id, s]) => [id, s.sum / s.n]));
}

const allSame = (values: number[]) => values.every((v) => Math.abs(v - values[0]!) < 1e-9);

/**
 * No interval of width zero unless the answers it is over leave nothing to vary: a mean's, unless
 * every scored answer has the same score; a Δ's, unless every question's difference is the same.
 */
export function intervalProblems(summary: RunSummary, records: RunItemRecord[]): string[] {
  const problems: string[] = [];
  for (const cell of summary.cells) {
    const { ciLow, ciHigh, mean } = cell.score;
    if (mean === null || ciLow === null || ciHigh === null || ciHigh - ciLow > 1e-9) continue;
    const scores = records.filter((r) => r.model === cell.model && r.condition === cell.condition && r.score.status === 'scored').map((r) => r.score.score!);
    if (!allSame(scores)) problems.push(`${cell.model} · ${cell.condition}: interval [${ciLow}, ${ciHigh}] of width zero over scores ${[...new Set(scores)].join(', ')}`);
  }
  for (const d of summary.paired) {
    if (d.meanDiff === null || d.ciLow === null || d.ciHigh === null || d.ciHigh - d.ciLow > 1e-9) continue;
    const against = questionMeans(records, d.model, d.baseline);
    const diffs = [...questionMeans(records, d.model, d.condition)].filter(([id]) => against.has(id)).map(([id, v]) => v - against.get(id)!);
    if (!allSame(diffs)) problems.push(`${d.model} · Δ ${d.condition} − ${d.baseline}: interval [${d.ciLow}, ${d.ciHigh}] of width zero over differences ${[...new Set(diffs.map((x) => x.toFixed(2)))].join(', ')}`);
  }
  return problems;
}
