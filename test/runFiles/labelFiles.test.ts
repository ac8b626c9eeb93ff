import { appendFile, mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendLabels, labelFile, listAnnotators, readLabelHistory, readLabels } from '../../src/runFiles/labelFiles.js';
import type { AnswerLabel } from '../../src/runFiles/labels.js';

const label = (key: string, hit: 0 | 1, at = '2026-01-01T00:00:00Z'): AnswerLabel => ({
  version: 1, key, itemKey: key.split('|')[2]!, model: 'm', condition: key.split('|')[1]!, sample: 0, annotator: 'ann',
  verdicts: { 加分项_1: hit }, score: hit * 100, at, source: 'viewer',
});

describe('label files', () => {
  it('keeps history and gives the later line for a key', async () => {
    const run = await mkdtemp(join(tmpdir(), 'labels-'));
    await appendLabels(run, 'ann', [label('m|cb|b:1', 0), label('m|cb|b:2', 1)]);
    await appendLabels(run, 'ann', [label('m|cb|b:1', 1, '2026-01-02T00:00:00Z')]);
    expect(await readLabelHistory(run, 'ann')).toHaveLength(3);
    const latest = await readLabels(run, 'ann');
    expect(latest.map((l) => [l.key, l.score])).toEqual([['m|cb|b:1', 100], ['m|cb|b:2', 100]]);
    expect(await listAnnotators(run)).toEqual(['ann']);
  });

  it('ignores a torn last line on read and cuts it before the next append', async () => {
    const run = await mkdtemp(join(tmpdir(), 'labels-'));
    await appendLabels(run, 'ann', [label('m|cb|b:1', 1)]);
    await appendFile(labelFile(run, 'ann'), '{"version":1,"key":"m|cb|b:2","ite');
    expect((await readLabels(run, 'ann')).map((l) => l.key)).toEqual(['m|cb|b:1']);
    await appendLabels(run, 'ann', [label('m|cb|b:3', 0)]);
    expect((await readLabels(run, 'ann')).map((l) => l.key)).toEqual(['m|cb|b:1', 'm|cb|b:3']);
    expect((await readFile(labelFile(run, 'ann'), 'utf8')).split('\n')).toHaveLength(3);
  });

  it('names file and line of a bad line in the middle', async () => {
    const run = await mkdtemp(join(tmpdir(), 'labels-'));
    await mkdir(join(run, 'labels'));
    await writeFile(labelFile(run, 'ann'), JSON.stringify({ ...label('m|cb|b:1', 1), score: 'x' }) + '\n' + JSON.stringify(label('m|cb|b:2', 1)) + '\n');
    await expect(readLabels(run, 'ann')).rejects.toThrow(/ann\.jsonl:1: .*score/);
  });

  it('refuses an annotator name that would leave the labels folder', () => {
    expect(() => labelFile('/run', '../x')).toThrow(/annotator/);
  });
});
