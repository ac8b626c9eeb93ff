import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledIsCurrent } from '../bin/sourceStamp.mjs';

/**
 * Brings dist/ up to date before the suite (a fraction of a second, only when a source changed), so
 * that the tests that spawn the CLI run the compiled code a user runs, and start as fast.
 */
export default function buildDistWhenStale(): void {
  const root = new URL('..', import.meta.url);
  if (compiledIsCurrent(root)) return;
  const result = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: fileURLToPath(root), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`scripts/build.mjs failed:\n${result.stderr}`);
}
