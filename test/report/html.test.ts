import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../../src/analysis/summary.js';
import { renderReportHtml } from '../../src/report/html.js';
import { summaryCsv } from '../../src/report/csv.js';
import { summaryTable } from '../../src/report/table.js';
import { makeRecord, scored } from '../experiment/fixtures.js';

const conditions = ['closed-book', 'rag@10', 'rag@20'];
function run() {
  const records = [];
  for (let i = 0; i < 6; i++) {
    for (const [j, condition] of conditions.entries()) {
      records.push(
        makeRecord({
          itemId: String(i),
          condition,
          score: scored(10 * j + i),
          response: { text: '<script>alert("x")</script> 殿试', raw: '<think>…</think><script>alert("x")</script> 殿试' },
          retrieved: condition === 'closed-book' ? [] : [{ id: 'c:1:0', rank: 1, score: 0.9, title: '<b>殿试</b>', text: '殿试由皇帝<主持>' }],
        }),
      );
    }
  }
  const summary = summarizeRun(records, { experiment: 'e', models: ['m'], conditions, baseline: 'closed-book', resamples: 200, seed: 1 });
  return { records, summary };
}

describe('HTML report', () => {
  it('draws a score-vs-k chart with CI bands and the closed-book reference line', () => {
    const { records, summary } = run();
    const html = renderReportHtml({ summary, records, manifest: { version: 0 } });
    expect(html).toMatch(/<svg[^>]*class="marks depth-chart"/);
    expect(html).toMatch(/class="[^"]*ci_band_marks"/);
    expect(html).toMatch(/class="[^"]*reference_line_marks"/);
    expect(html).toMatch(/class="[^"]*series_line_marks"/);
  });

  it('opens offline: no script, stylesheet, image or font is fetched from anywhere', () => {
    const { records, summary } = run();
    const html = renderReportHtml({ summary, records, manifest: { version: 0 } });
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/url\(\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import/);
  });

  it('escapes everything a model wrote', () => {
    const { records, summary } = run();
    const html = renderReportHtml({ summary, records, manifest: { version: 0 } });
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;殿试&lt;/b&gt;');
  });

  it('is self-contained: no external scripts, styles or fonts', () => {
    const { records, summary } = run();
    const html = renderReportHtml({ summary, records, manifest: { version: 0 } });
    expect(html).not.toMatch(/<script|<link |src="http|href="http/);
  });

  it('lists every question in the drill-down with each condition', () => {
    const { records, summary } = run();
    const html = renderReportHtml({ summary, records, manifest: { version: 0 } });
    expect(html.match(/<details class="question">/g)).toHaveLength(6);
    expect(html.match(/<details class="answer">/g)).toHaveLength(18);
  });
});

describe('text and CSV summaries', () => {
  it('prints one row per condition with mean, CI and the paired difference', () => {
    const { summary } = run();
    const table = summaryTable(summary);
    const lines = table.split('\n');
    for (const c of conditions) expect(lines.some((l) => l.startsWith(c + ' '))).toBe(true);
    expect(table).toContain('Δ vs closed-book');
    expect(table).toMatch(/rag@20\s+22\.50\s+\[/);
  });

  it('writes a tidy CSV with a header and a row per cell and group', () => {
    const { summary } = run();
    const csv = summaryCsv(summary).trim().split('\n');
    expect(csv[0]).toMatch(/^model,condition,strategy,retriever,k,group,group_value,n,mean/);
    expect(csv.filter((l) => l.includes(',all,all,'))).toHaveLength(3);
  });

  it('quotes CSV fields holding commas, quotes or line breaks (RFC 4180)', () => {
    const { summary } = run();
    const cell = { ...summary.cells[0]!, model: 'deepseek, "r1"\nlatest', byGroup: {} };
    const csv = summaryCsv({ ...summary, cells: [cell], paired: [] });
    expect(csv).toContain('\n"deepseek, ""r1""\nlatest",');
  });
});
