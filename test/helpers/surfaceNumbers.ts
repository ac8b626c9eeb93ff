import type { RunSummary } from '../../src/runFiles/summary.js';
import type { RunDetail } from '../../src/viewer/api.js';

/**
 * Checks that what each surface of a run prints — the terminal table, report.html, summary.csv,
 * the LaTeX tables, the viewer's API — says what summary.json says, each at the precision it prints:
 * a condition's row carries its mean and interval and its Δ against the baseline, and where labels
 * exist, the corrected (PPI++) Δ is shown beside the judge-only one.
 */
export interface Surfaces {
  terminal: string;
  reportHtml: string;
  csv: string;
  latex: { name: string; tex: string }[];
  viewer: RunDetail;
}

/** Number tokens of a text (a minus sign as "-" or "−"), with how many decimals each is printed with. */
function numbers(text: string): { value: number; decimals: number }[] {
  return [...text.matchAll(/[+\-−]?\d+(?:\.(\d+))?/g)].map((m) => ({ value: Number(m[0].replace('−', '-')), decimals: m[1]?.length ?? 0 }));
}

/** Whether `value` is printed among `tokens` at a precision of at least one decimal. */
function printed(value: number, tokens: { value: number; decimals: number }[]): boolean {
  return tokens.some((t) => t.decimals > 0 && Math.abs(t.value - value) <= 0.5 * 10 ** -t.decimals + 1e-9);
}

/** The figures of one condition's row every surface must print (null where summary.json has none). */
function expectedRow(summary: RunSummary, cell: RunSummary['cells'][number]) {
  const d = summary.paired.find((p) => p.model === cell.model && p.condition === cell.condition);
  return { mean: cell.score.mean, ciLow: cell.score.ciLow, ciHigh: cell.score.ciHigh, delta: d?.meanDiff ?? null, deltaLow: d?.ciLow ?? null, deltaHigh: d?.ciHigh ?? null };
}

function rowProblems(surface: string, summary: RunSummary, cell: RunSummary['cells'][number], rowText: string | undefined): string[] {
  if (rowText === undefined) return [`${surface}: no row for ${cell.model} · ${cell.condition}`];
  // In the order every table prints them (mean, its interval, Δ, its interval): a Δ left out is not found in the mean's place.
  const tokens = numbers(rowText.replace(cell.condition, ''));
  const problems: string[] = [];
  let from = 0;
  for (const [field, value] of Object.entries(expectedRow(summary, cell))) {
    if (value === null) continue;
    const at = tokens.findIndex((t, i) => i >= from && printed(value, [t]));
    if (at === -1) problems.push(`${surface}: ${cell.model} · ${cell.condition}: ${field} ${value} of summary.json is not in the row (after what precedes it) "${rowText.trim().replace(/\s+/g, ' ')}"`);
    else from = at + 1;
  }
  return problems;
}

/** The terminal table's rows: per `model: <name>` block, the line that starts with the condition. */
function terminalRow(text: string, model: string, condition: string): string | undefined {
  const block = text.split(/^model: /m).find((b) => b.startsWith(`${model}\n`));
  return block?.split('\n').find((line) => line.startsWith(`${condition}  `) || line === condition);
}

const stripTags = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"');

const rowKey = (model: string, condition: string) => `${model}\u0000${condition}`;

/** report.html's conditions tables, each after its model's `<h3>`: every row's cells by model and its first cell (the condition). */
function reportRows(html: string): Map<string, string> {
  const rows = new Map<string, string>();
  const tables = html.split('<table class="conditions">');
  for (let i = 1; i < tables.length; i++) {
    const before = tables[i - 1]!;
    const model = stripTags(before.slice(before.lastIndexOf('<h3>'), before.lastIndexOf('</h3>'))).trim();
    const body = tables[i]!.slice(0, tables[i]!.indexOf('</table>'));
    for (const row of body.split('<tr>').slice(1)) {
      const cells = row.split('<td').slice(1).map((c) => stripTags('<td' + c).trim());
      if (cells.length && !rows.has(rowKey(model, cells[0]!))) rows.set(rowKey(model, cells[0]!), cells.join('  '));
    }
  }
  return rows;
}

/** RFC 4180 CSV rows. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\n') row.push(cell), rows.push(row), (row = []), (cell = '');
    else cell += ch;
  }
  if (cell !== '' || row.length) row.push(cell), rows.push(row);
  return rows;
}

/** summary.csv prints every figure in full: its `all` row of a condition has the same numbers as summary.json, exactly. */
function csvProblems(summary: RunSummary, csv: string): string[] {
  const [header, ...rows] = parseCsv(csv);
  const col = (name: string) => header!.indexOf(name);
  const problems: string[] = [];
  for (const cell of summary.cells) {
    const row = rows.find((r) => r[col('model')] === cell.model && r[col('condition')] === cell.condition && r[col('group')] === 'all');
    if (!row) {
      problems.push(`summary.csv: no row for ${cell.model} · ${cell.condition}`);
      continue;
    }
    const expected = expectedRow(summary, cell);
    const columns: Record<keyof typeof expected, string> = { mean: 'mean', ciLow: 'ci_low', ciHigh: 'ci_high', delta: 'diff_vs_baseline', deltaLow: 'diff_ci_low', deltaHigh: 'diff_ci_high' };
    for (const [field, column] of Object.entries(columns) as [keyof typeof expected, string][]) {
      const text = row[col(column)] ?? '';
      const value = expected[field];
      const same = value === null ? text === '' : text !== '' && Math.abs(Number(text) - value) <= 1e-9 * Math.max(1, Math.abs(value));
      if (!same) problems.push(`summary.csv: ${cell.model} · ${cell.condition}: ${column} is "${text}", summary.json's ${field} is ${value}`);
    }
  }
  return problems;
}

/** LaTeX text as read: the signs condition names use (·, –, ×) and escaped specials back to themselves. */
const detex = (tex: string) =>
  tex
    .replace(/\$\\cdot\$/g, '·')
    .replace(/\$\\times\$/g, '×')
    .replace(/---/g, '—')
    .replace(/--/g, '–')
    .replace(/\\([&%$#_{}])/g, '$1')
    .trim();

/** The LaTeX conditions table of each model (`conditions` or `conditions-<n>` in model order): the row that starts with the condition. */
function latexRow(latex: Surfaces['latex'], summary: RunSummary, model: string, condition: string): string | undefined {
  const tag = summary.models.length > 1 ? `-${summary.models.indexOf(model) + 1}` : '';
  const table = latex.find((t) => t.name === `conditions${tag}`);
  return table?.tex.split('\n').find((line) => line.includes(' & ') && detex(line.slice(0, line.indexOf(' & '))) === condition);
}

/** The viewer's run page: its cells and their paired Δ, and its judge check, are summary.json's. */
function viewerProblems(summary: RunSummary, viewer: RunDetail): string[] {
  const problems: string[] = [];
  if (viewer.baseline !== summary.baseline) problems.push(`viewer: baseline "${viewer.baseline}", summary.json's "${summary.baseline}"`);
  for (const cell of summary.cells) {
    const shown = viewer.cells.find((c) => c.model === cell.model && c.condition === cell.condition);
    const expected = expectedRow(summary, cell);
    const got = shown && { mean: shown.score.mean, ciLow: shown.score.ciLow, ciHigh: shown.score.ciHigh, delta: shown.paired?.meanDiff ?? null, deltaLow: shown.paired?.ciLow ?? null, deltaHigh: shown.paired?.ciHigh ?? null };
    if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`viewer: ${cell.model} · ${cell.condition} shows ${JSON.stringify(got)}, summary.json ${JSON.stringify(expected)}`);
  }
  if (JSON.stringify(viewer.judgeCheck ?? null) !== JSON.stringify(summary.judgeCheck ?? null)) problems.push('viewer: its judge check is not summary.json\'s');
  return problems;
}

/** Where labels exist, every text surface shows each corrected (PPI++) Δ of summary.json's judge check. */
function correctedProblems(summary: RunSummary, surfaces: Surfaces): string[] {
  const problems: string[] = [];
  const differences = summary.judgeCheck?.differences ?? [];
  if (!differences.length) return problems;
  const texts: Record<string, string> = { terminal: surfaces.terminal, 'report.html': stripTags(surfaces.reportHtml), LaTeX: surfaces.latex.map((t) => t.tex).join('\n') };
  const tokens = Object.entries(texts).map(([surface, text]) => [surface, numbers(text)] as const);
  for (const d of differences) {
    const value = d.ppiPlusPlus.estimate;
    if (value === null) continue;
    for (const [surface, printedNumbers] of tokens) {
      if (!printed(value, printedNumbers)) problems.push(`${surface}: the corrected Δ ${value} (${d.model} · ${d.condition} vs ${d.baseline}) of summary.json's judge check is not shown`);
    }
  }
  return problems;
}

/** Every disagreement between a surface and summary.json. */
export function surfaceProblems(summary: RunSummary, surfaces: Surfaces): string[] {
  const problems: string[] = [];
  const report = reportRows(surfaces.reportHtml);
  for (const cell of summary.cells) {
    problems.push(...rowProblems('terminal', summary, cell, terminalRow(surfaces.terminal, cell.model, cell.condition)));
    problems.push(...rowProblems('report.html', summary, cell, report.get(rowKey(cell.model, cell.condition))));
    problems.push(...rowProblems('LaTeX', summary, cell, latexRow(surfaces.latex, summary, cell.model, cell.condition)));
  }
  problems.push(...csvProblems(summary, surfaces.csv), ...viewerProblems(summary, surfaces.viewer), ...correctedProblems(summary, surfaces));
  return problems;
}
