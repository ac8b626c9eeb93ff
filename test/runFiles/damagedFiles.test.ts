// A damaged run or index file is refused with exit 2 and a message naming the file and the field,
// never read as if it were absent (issue 52): a diagnostics.jsonl line whose diagnosis has the wrong
// shape, a diagnostics.json of the wrong shape, an index or corpus manifest with a field of the wrong type.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { hisragInProcess } from '../helpers/cliInProcess.js';

type DiagnosticsLine = { fingerprint: string; diagnostics: { responseClaims: unknown } };

/** Rewrites line `n` (1-based) of diagnostics.jsonl with `edit` applied to its value. */
function editLine(file: string, n: number, edit: (line: DiagnosticsLine) => void): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const value: DiagnosticsLine = JSON.parse(lines[n - 1]!);
  edit(value);
  lines[n - 1] = JSON.stringify(value);
  writeFileSync(file, lines.join('\n'));
}

function editJson<T>(file: string, edit: (value: T) => void): void {
  const value: T = JSON.parse(readFileSync(file, 'utf8'));
  edit(value);
  writeFileSync(file, JSON.stringify(value));
}

describe('damaged files are refused, never read as absent', () => {
  let dir: string;
  let diagnosed: string;
  let copies = 0;
  /** A fresh copy of the diagnosed run, to damage. */
  const copyRun = () => {
    const copy = join(dir, 'runs', `copy-${++copies}`);
    cpSync(diagnosed, copy, { recursive: true });
    return copy;
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-damaged-'));
    const file = demoConfigIn(dir, (config) => {
      config.retrieval.k = [10];
    });
    const run = await hisragInProcess('run', file, '--run-id', 'r', '--no-progress', '--quiet');
    expect(run.stderr).toBe('');
    diagnosed = join(dir, 'runs', 'r');
    const diagnose = await hisragInProcess('diagnose', diagnosed, '--no-progress', '--quiet');
    expect(diagnose.stderr).toBe('');
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('hisrag report: a diagnostics.jsonl line whose responseClaims is a number', async () => {
    const runDir = copyRun();
    const file = join(runDir, 'diagnostics.jsonl');
    editLine(file, 2, (line) => {
      line.diagnostics.responseClaims = 3;
    });
    const result = await hisragInProcess('report', '--quiet', runDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2: diagnostics.responseClaims:`);
  });

  it('hisrag diagnose: the same damaged line is refused, not redone in silence', async () => {
    const runDir = copyRun();
    const file = join(runDir, 'diagnostics.jsonl');
    editLine(file, 2, (line) => {
      line.diagnostics.responseClaims = 3;
    });
    const result = await hisragInProcess('diagnose', runDir, '--no-progress', '--quiet');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2: diagnostics.responseClaims:`);
  });

  it('hisrag report: a line of another diagnosis (its fingerprint not the answer\'s now) is redone later, not refused', async () => {
    const runDir = copyRun();
    editLine(join(runDir, 'diagnostics.jsonl'), 2, (line) => {
      line.fingerprint = 'an older format';
      line.diagnostics.responseClaims = 3;
    });
    const result = await hisragInProcess('report', '--quiet', runDir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('hisrag report: a diagnostics.json whose settings.topChunks is a string', async () => {
    const runDir = copyRun();
    const file = join(runDir, 'diagnostics.json');
    editJson<{ settings: { topChunks: unknown } }>(file, (state) => {
      state.settings.topChunks = 'five';
    });
    const result = await hisragInProcess('report', '--quiet', runDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: settings.topChunks:`);
  });

  it('hisrag retrieve --gold: a corpus manifest whose duplicateOf is a number', async () => {
    const file = join(dir, 'corpus', 'manifest.json');
    const before = readFileSync(file, 'utf8');
    editJson<{ duplicateOf: unknown }>(file, (manifest) => {
      manifest.duplicateOf = 5;
    });
    const queries = join(dir, 'queries.jsonl');
    writeFileSync(queries, `${JSON.stringify({ query: '科举', gold: ['x'] })}\n`);
    const result = await hisragInProcess('retrieve', '--index', join(dir, 'index'), '--queries', queries, '--gold', '-k', '2');
    writeFileSync(file, before);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: duplicateOf:`);
  });

  it('hisrag retrieve: an index manifest whose corpus.dir is a number', async () => {
    const file = join(dir, 'index', 'manifest.json');
    editJson<{ corpus: { dir: unknown } }>(file, (manifest) => {
      manifest.corpus.dir = 7;
    });
    const result = await hisragInProcess('retrieve', '--index', join(dir, 'index'), '--query', '科举', '-k', '2');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: corpus.dir:`);
  });
});
