// A damaged run or index file is refused with exit 2 and a message naming the file and the field,
// never read as if it were absent (issue 52): a diagnostics.jsonl line whose diagnosis has the wrong
// shape, an index manifest whose corpus folder is not a string.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { hisragInProcess } from '../helpers/cliInProcess.js';

describe('damaged files are refused, never read as absent', () => {
  let dir: string;
  let runDir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-damaged-'));
    const file = demoConfigIn(dir, (config) => {
      config.retrieval.k = [10];
    });
    const run = await hisragInProcess('run', file, '--run-id', 'r', '--no-progress', '--quiet');
    expect(run.stderr).toBe('');
    runDir = join(dir, 'runs', 'r');
    const diagnosed = await hisragInProcess('diagnose', runDir, '--no-progress', '--quiet');
    expect(diagnosed.stderr).toBe('');
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('hisrag report: a diagnostics.jsonl line whose responseClaims is a number', async () => {
    const file = join(runDir, 'diagnostics.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = JSON.parse(lines[1]!);
    line.diagnostics.responseClaims = 3;
    lines[1] = JSON.stringify(line);
    writeFileSync(file, lines.join('\n'));
    const result = await hisragInProcess('report', '--quiet', runDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2`);
    expect(result.stderr).toContain('diagnostics.responseClaims');
  });

  it('hisrag retrieve --gold: a corpus manifest whose duplicateOf is a number', async () => {
    const file = join(dir, 'corpus', 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.duplicateOf = 5;
    writeFileSync(file, JSON.stringify(manifest));
    const queries = join(dir, 'queries.jsonl');
    writeFileSync(queries, `${JSON.stringify({ query: '科举', gold: ['x'] })}\n`);
    const result = await hisragInProcess('retrieve', '--index', join(dir, 'index'), '--queries', queries, '--gold', '-k', '2');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: duplicateOf`);
  });

  it('hisrag retrieve: an index manifest whose corpus.dir is a number', async () => {
    const file = join(dir, 'index', 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.corpus.dir = 7;
    writeFileSync(file, JSON.stringify(manifest));
    const result = await hisragInProcess('retrieve', '--index', join(dir, 'index'), '--query', '科举', '-k', '2');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: corpus.dir`);
  });
});
