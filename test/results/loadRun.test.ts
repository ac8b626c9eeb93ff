import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileError, InputError } from '../../src/errors.js';
import { loadRun, loadRuns } from '../../src/results/loadRun.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { writeRunDir } from './runDirFixture.js';

describe('loadRun', () => {
  it('reads config, manifest order and every record of a run directory', async () => {
    const records = [makeRecord({ itemId: '1', condition: 'rag@10', score: scored(40) }), makeRecord({ itemId: '1', condition: 'closed-book', score: scored(20) })];
    const dir = writeRunDir(records, { conditions: ['closed-book', 'rag@10'] });
    const run = await loadRun(dir);
    expect(run.config.name).toBe('fixture');
    expect(run.conditions).toEqual(['closed-book', 'rag@10']);
    expect(run.models).toEqual(['m']);
    expect(run.records.map((r) => r.condition).sort()).toEqual(['closed-book', 'rag@10']);
    expect(run.summary.cells.find((c) => c.condition === 'rag@10')!.score.mean).toBe(40);
  });

  it('refuses a directory without config.json', async () => {
    const dir = writeRunDir([]);
    await expect(loadRun(join(dir, 'nope'))).rejects.toThrow(InputError);
  });

  it('names file and line of a malformed record', async () => {
    const dir = writeRunDir([makeRecord({ itemId: '1', condition: 'closed-book' })]);
    writeFileSync(join(dir, 'items.jsonl'), '{"key": 1}\n{"also": "bad"}\n');
    await expect(loadRun(dir)).rejects.toThrow(DataFileError);
    await expect(loadRun(dir)).rejects.toThrow(/items\.jsonl:1:/);
  });

  it('loads several runs side by side, each under its directory name', async () => {
    const a = writeRunDir([makeRecord({ itemId: '1', condition: 'closed-book' })]);
    const b = writeRunDir([makeRecord({ itemId: '1', condition: 'closed-book', model: 'other' })]);
    const runs = await loadRuns([a, b]);
    expect(runs.map((r) => r.models[0])).toEqual(['m', 'other']);
    expect(runs[0]!.id).not.toBe(runs[1]!.id);
  });
});
