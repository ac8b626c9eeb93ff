/**
 * hisrag's results API for the notebooks, with its types.
 *
 * Why not a plain `import ... from '../src/results/index.js'`: tslab compiles cells with its own
 * TypeScript 5.0 (Node10 module resolution, CommonJS, `rootDir` = the notebook folder), which can
 * neither reach files outside notebooks/ nor resolve package "exports" subpaths the library uses.
 * So the code is loaded at run time by tsx — the same loader `bin/hisrag.mjs` uses — and the types
 * come from declarations `npm run notebooks` emits with the project's own TypeScript
 * (notebooks/tsconfig.types.json → notebooks/.hisrag-types/).
 */
import type * as Results from './.hisrag-types/results/index.js';

const path = require('node:path') as typeof import('path');
const fs = require('node:fs') as typeof import('fs');

/** The repository root (the notebooks live in `<root>/notebooks`). */
export const repoRoot: string = path.resolve(process.cwd(), '..');

export type Hisrag = typeof Results;
export type { TidyRow, GroupMean, LoadedRun, PairedComparison } from './.hisrag-types/results/index.js';

/** Loads `src/results/index.ts` through tsx (CommonJS API: tslab runs cells as CommonJS). */
export function loadHisrag(): Hisrag {
  const tsx = require('tsx/cjs/api') as { require: (id: string, fromFile: string) => unknown };
  return tsx.require(path.join(repoRoot, 'src/results/index.ts'), path.join(repoRoot, 'notebooks/hisrag.ts')) as Hisrag;
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
