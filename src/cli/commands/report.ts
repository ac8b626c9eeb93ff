import type { Command } from 'commander';

export function registerReportCommands(program: Command): void {
  program
    .command('report')
    .description('Recompute summary.json/summary.csv and rewrite report.html of a run directory')
    .argument('<run-dir>', 'a run directory (experiments/runs/<run-id>)')
    .option('--quiet', 'print only the report path')
    .action(async (runDir: string, opts: { quiet?: boolean }) => {
      const { regenerateReport } = await import('../../app/rewriteReport.js');
      const { summaryTable } = await import('../../report/table.js');
      const { summary, reportPath } = await regenerateReport(runDir);
      if (!opts.quiet) process.stdout.write(summaryTable(summary) + '\n\n');
      process.stdout.write(`report: ${reportPath}\n`);
    });

  program
    .command('figures')
    .description("Render a run's figure specs (figures/<name>.vl.json, saved with the report; restyle them freely) to figures/<name>.svg, or .svg and .pdf")
    .argument('<run-dir>', 'a run directory (experiments/runs/<run-id>)')
    .option('--format <format>', 'svg, or pdf (also writes the SVG; needs Chromium: CHROMIUM_PATH or /usr/bin/chromium)', 'svg')
    .action(async (runDir: string, opts: { format: string }) => {
      const { InputError } = await import('../../errors.js');
      if (opts.format !== 'svg' && opts.format !== 'pdf') throw new InputError(`hisrag figures: --format must be svg or pdf, not ${JSON.stringify(opts.format)}`);
      const { renderRunFigures } = await import('../../app/figures.js');
      const saved = await renderRunFigures(runDir, { format: opts.format });
      for (const figure of saved) process.stdout.write(`${figure.pdf ?? figure.svg}\n`);
      const skipped = saved.find((f) => opts.format === 'pdf' && !f.pdf);
      if (skipped) process.stderr.write(`PDF skipped: ${skipped.reason ?? 'no Chromium'}; the SVGs are written\n`);
    });

  program
    .command('export')
    .description("A run's tables as booktabs LaTeX (conditions with intervals, Δ with adjusted p and, with labels, the corrected Δ; depth curves and families, chunking × depth, span retrieval, modality, judge check; numbers from summary.json) and its figures as SVG (and PDF)")
    .argument('<run-dir>', 'a run directory (experiments/runs/<run-id>)')
    .requiredOption('--latex <out-dir>', 'where to write <table>.tex, figures/<name>.svg and main.tex (the document that sets them)')
    .option('--pdf', 'also print each figure to PDF (needs Chromium: CHROMIUM_PATH or /usr/bin/chromium)')
    .action(async (runDir: string, opts: { latex: string; pdf?: boolean }) => {
      const { exportLatex } = await import('../../app/figures.js');
      const { files, engine, pdfSkipped, refreshed } = await exportLatex(runDir, opts.latex, { pdf: opts.pdf ?? false });
      if (refreshed) process.stderr.write(`${refreshed}\n`);
      for (const path of files) process.stdout.write(`${path}\n`);
      if (pdfSkipped) process.stderr.write(`figures not printed to PDF: ${pdfSkipped}; main.tex names them in comments\n`);
      process.stderr.write(`compile: cd ${opts.latex} && ${engine} main.tex\n`);
    });

  program
    .command('compare')
    .description('Put two runs side by side: mean score per model × condition, the difference B − A paired over the questions both scored (interval, sign-flip p, Holm and BH over the named family)')
    .argument('<run-a>', 'first run directory')
    .argument('<run-b>', 'second run directory')
    .option('--json', 'print the comparison as JSON')
    .option('--against <condition>', "take every condition of B against this condition of A (one run twice: its summary's differences against that condition)")
    .action(async (runA: string, runB: string, opts: { json?: boolean; against?: string }) => {
      const { compareRuns } = await import('../../app/compare.js');
      const comparison = await compareRuns(runA, runB, opts.against ? { against: opts.against } : {});
      process.stdout.write((opts.json ? JSON.stringify(comparison.rows, null, 2) : comparison.text) + '\n');
      // Two runs without one question scored in both compare nothing: "0 differences" must not read as "no difference".
      if (comparison.rows.every((row) => row.paired === null)) {
        const { InputError } = await import('../../errors.js');
        throw new InputError(`hisrag compare: ${runA} and ${runB} share no question scored in both under the same model × condition; nothing was compared (are they runs of the same benchmark and conditions?)`);
      }
    });
}
