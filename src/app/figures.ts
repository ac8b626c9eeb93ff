import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataFileError, InputError } from '../errors.js';
import { figureSvg } from '../figures/render.js';
import type { VegaLiteSpec } from '../figures/lineFigure.js';
import { saveFigures, type SavedFigure } from '../results/saveFigure.js';

/**
 * `hisrag figures <run-dir>`: renders every saved figure spec of a run (`figures/<name>.vl.json`,
 * written with the report and perhaps restyled since) to `figures/<name>.svg`, and with
 * `format: 'pdf'` also to `.pdf` through headless Chromium (skipped, with the reason, without one).
 */
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
