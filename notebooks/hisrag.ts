/**
 * hisrag's results API for the notebooks, with its types.
 *
 * Why not a plain `import ... from '../src/results/index.js'`: tslab compiles cells with its own
 * TypeScript 5.0 (Node10 module resolution, CommonJS, `rootDir` = the notebook folder), which can
 * neither reach files outside notebooks/ nor resolve package "exports" subpaths the library uses.
 * So the compiled code is imported at run time (`loadHisrag`), and the types come from declarations
 * `npm run notebooks` emits with the project's own TypeScript
 * (notebooks/tsconfig.types.json → notebooks/.hisrag-types/).
 */
import type * as Results from './.hisrag-types/results/index.js';

const path = require('node:path') as typeof import('path');
const fs = require('node:fs') as typeof import('fs');

/** The repository root (the notebooks live in `<root>/notebooks`). */
export const repoRoot: string = path.resolve(process.cwd(), '..');

export type Hisrag = typeof Results;
export type { TidyRow, GroupMean, LoadedRun, PairedComparison } from './.hisrag-types/results/index.js';

/**
 * Loads the compiled results API (`dist/results/index.js`, built by `npm ci` / `npm run build`) as an
 * ES module: its figures use Vega, whose modules are ESM with top-level await and cannot be
 * `require`d. A stale `dist/` (sources edited since the build) is refused with a message saying to run
 * `npm run build` (`bin/sourceGuard.mjs`).
 */
export async function loadHisrag(): Promise<Hisrag> {
  // A real dynamic import: tslab compiles cells to CommonJS, which would turn `import()` into `require()`.
  const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;
  const { pathToFileURL } = require('node:url') as typeof import('url');
  await importModule(pathToFileURL(path.join(repoRoot, 'bin/sourceGuard.mjs')).href);
  return (await importModule(pathToFileURL(path.join(repoRoot, 'dist/results/index.js')).href)) as Hisrag;
}

/**
 * A run directory from an environment variable (set by `npm run notebooks`), else the default
 * below `experiments/runs/`; relative paths are taken from the repository root.
 */
export function runDirFromEnv(variable: string, fallback: string): string {
  const dir = path.resolve(repoRoot, process.env[variable] || fallback);
  if (!fs.existsSync(path.join(dir, 'config.json'))) {
    throw new Error(`${dir} is not a hisrag run directory: run \`npm run notebooks\` first, or set ${variable} to one of your runs`);
  }
  return dir;
}

/** Where figures are exported (HISRAG_FIGURES, default notebooks/figures). */
export const figuresDir: string = path.resolve(repoRoot, process.env.HISRAG_FIGURES || 'notebooks/figures');
