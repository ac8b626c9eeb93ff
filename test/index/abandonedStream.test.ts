import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/runCli.js';

const dir = mkdtempSync(join(tmpdir(), 'hisrag-abandoned-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Run in a child process: the failure this guards against (a graph thread terminated inside hnswlib's
// addPoint) is a native FATAL ERROR that aborts the whole process, which would take the test runner with it.
const script = `
const { startHnswlibStream } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'src/index/graphs/hnswlibStream.ts')).href)});
const dim = 128;
const params = { space: 'ip', M: 16, efConstruction: 200, efSearch: 50, randomSeed: 100, library: 'hnswlib' };
for (let round = 0; round < 20; round++) {
  const build = await startHnswlibStream(dim, params, ${JSON.stringify(dir)} + '/g' + round + '.bin', { capacity: 20000, heldOut: [] });
  const rows = new Float32Array(4000 * dim).map(() => Math.random() - 0.5);
  void build.add(0, rows).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 5 + round * 3));
  await build.abort();
}
console.log('survived 20 abandoned builds');
`;

describe('a streamed hnswlib build abandoned while its thread inserts rows', () => {
  it('stops the thread without aborting the process (20 builds abandoned at different moments)', () => {
    const file = join(dir, 'abandon.mts');
    writeFileSync(file, script);
    const child = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(child.stderr).not.toContain('FATAL ERROR');
    expect(child.status).toBe(0);
    expect(child.stdout).toContain('survived 20 abandoned builds');
  }, 150_000);
});
