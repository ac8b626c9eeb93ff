import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataFileError, InputError } from '../errors.js';
import { figureSvg } from '../figures/render.js';
import type { VegaLiteSpec } from '../figures/lineFigure.js';
import { saveFigures, type SavedFigure } from '../results/saveFigure.js';

/** `hisrag figures`: every saved `figures/<name>.vl.json` to SVG, and with `pdf` to PDF too (through Chromium). */
export async function renderRunFigures(runDir: string, options: { format?: 'svg' | 'pdf'; chromiumPath?: string } = {}): Promise<SavedFigure[]> {
  const dir = join(runDir, 'figures');
  if (!existsSync(dir)) throw new InputError(`${dir}: no figures saved with this run (rewrite the report with \`hisrag report ${runDir}\` to save them)`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.vl.json')).sort();
  const figures = files.map((file) => {
    const path = join(dir, file);
    let spec: VegaLiteSpec;
    try {
      spec = JSON.parse(readFileSync(path, 'utf8')) as VegaLiteSpec;
    } catch (error) {
      throw new DataFileError(`${path}: not JSON (${(error as Error).message})`);
    }
    try {
      return { svg: figureSvg(spec), path: join(dir, file.replace(/\.vl\.json$/, '.svg')) };
    } catch (error) {
      throw new DataFileError(`${path}: not a Vega-Lite spec this renderer can draw (${(error as Error).message})`);
    }
  });
  return saveFigures(figures, { png: false, pdf: options.format === 'pdf', ...(options.chromiumPath ? { chromiumPath: options.chromiumPath } : {}) });
}

/** `hisrag export --latex`: booktabs tables from summary.json, the figures, and a `main.tex` that sets them. */
export async function exportLatex(runDir: string, outDir: string, options: { pdf?: boolean; chromiumPath?: string } = {}): Promise<{ files: string[]; engine: 'pdflatex' | 'xelatex'; pdfSkipped?: string; refreshed?: string }> {
  const { readRunSummaryFile } = await import('../runFiles/summaryFile.js');
  // Labels newer than summary.json (a label file written by hand): its judge check is refreshed first, so the export shows them.
  const { refreshLabelledOutputs, staleLabelsNote } = await import('./rewriteReport.js');
  const stale = await staleLabelsNote(runDir);
  if (stale) await refreshLabelledOutputs(runDir);
  const summary = await readRunSummaryFile(runDir);
  if (!summary) throw new InputError(`${runDir}: no summary.json (write it with \`hisrag report ${runDir}\`)`);
  const { latexDocument, latexTables } = await import('../report/latex.js');
  const { runFigureSpecs } = await import('../figures/runFigures.js');
  const { atomicWrite } = await import('../io/atomicWrite.js');
  const files: string[] = [];
  const tables = latexTables(summary);
  for (const { name, tex } of tables) {
    const path = join(outDir, `${name}.tex`);
    await atomicWrite(path, tex + '\n');
    files.push(path);
  }
  // Each table as CSV beside its .tex: the same numbers, unrounded, for a spreadsheet or another typesetter.
  const { reportSections } = await import('../report/sections.js');
  const { sectionCsv } = await import('../report/csv.js');
  for (const table of reportSections(summary)) {
    const path = join(outDir, `${table.name}.csv`);
    await atomicWrite(path, sectionCsv(table));
    files.push(path);
  }
  const specs = runFigureSpecs(summary);
  const { columnFigureSpec, COLUMN_WIDTH_PX } = await import('../figures/columnFigure.js');
  // Drawn at a column's width with text that prints at ≥ 7 pt there (main.tex sets each at \linewidth).
  const figures = specs.map(({ name, spec }) => ({ svg: figureSvg(columnFigureSpec(spec), { width: COLUMN_WIDTH_PX }), path: join(outDir, 'figures', `${name}.svg`) }));
  const saved = await saveFigures(figures, { png: false, pdf: options.pdf ?? false, ...(options.chromiumPath ? { chromiumPath: options.chromiumPath } : {}) });
  for (const figure of saved) files.push(figure.svg, ...(figure.pdf ? [figure.pdf] : []));
  const main = latexDocument(summary, tables, specs.map((f, i) => ({ name: f.name, model: f.model, subject: f.subject, pdf: Boolean(saved[i]!.pdf) })));
  const mainPath = join(outDir, 'main.tex');
  await atomicWrite(mainPath, main);
  files.push(mainPath);
  const skipped = options.pdf ? saved.find((f) => !f.pdf)?.reason : undefined;
  return { files, engine: main.includes('\\usepackage{xeCJK}') ? 'xelatex' : 'pdflatex', ...(skipped ? { pdfSkipped: skipped } : {}), ...(stale ? { refreshed: `${stale}; refreshed before the export` } : {}) };
}
