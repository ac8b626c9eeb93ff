import { escapeHtml } from '../report/escape.js';

/**
 * Rows of plain objects as an HTML table for a notebook's `display.html`. Nested objects
 * (e.g. a GroupMean's `keys`) are flattened into their own columns; numbers are rounded.
 */
export function htmlTable(rows: readonly object[], options: { columns?: string[]; digits?: number; maxRows?: number } = {}): string {
  const flat = rows.map((row) => flatten(row as Record<string, unknown>));
  const columns = options.columns ?? [...new Set(flat.flatMap((r) => Object.keys(r)))];
  const digits = options.digits ?? 2;
  const shown = options.maxRows === undefined ? flat : flat.slice(0, options.maxRows);
  const cell = (v: unknown) => {
    if (v === null || v === undefined) return '–';
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(digits);
    return escapeHtml(typeof v === 'string' ? v : JSON.stringify(v));
  };
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = shown.map((r) => `<tr>${columns.map((c) => `<td>${cell(r[c])}</td>`).join('')}</tr>`).join('\n');
  const more = shown.length < flat.length ? `<p>… ${flat.length - shown.length} more rows</p>` : '';
  return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>${more}`;
}

function flatten(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) Object.assign(out, flatten(value as Record<string, unknown>));
    else out[key] = value;
  }
  return out;
}
