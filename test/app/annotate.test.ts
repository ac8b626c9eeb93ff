import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportLabels, importLabels, scoreMarks } from '../../src/app/labelExchange.js';
import { drawLabelSample, drawRunLabelSample, readRunForLabels } from '../../src/app/labelSample.js';
import { appendLabels, readLabels, readLabelSample } from '../../src/runFiles/labelFiles.js';
import { parseRubric } from '../../src/scoring/rubric/parseRubric.js';
import { rubricScore } from '../../src/scoring/rubric/rubricScore.js';
import { demoQuestions, makeLabelRun, verdictKeys } from '../helpers/labelRun.js';
import { runCli } from '../helpers/runCli.js';

const CONDITIONS = ['closed-book', 'rag@10', 'rag@50'];
const tmp = () => mkdtempSync(join(tmpdir(), 'annotate-'));

describe('hisrag annotate: the draw', () => {
  it('draws the same questions under the baseline and every condition, only scored answers, seeded', async () => {
    // rag@50 lacks question 0; question 1 failed under rag@10: neither can be paired across all three.
    const dir = makeLabelRun(tmp(), CONDITIONS, { skip: (c, i) => c === 'rag@50' && i === 0, failed: (c, i) => c === 'rag@10' && i === 1 });
    const { records } = await readRunForLabels(dir);
    const options = { size: 6, baseline: 'closed-book', conditions: ['rag@10', 'rag@50'], seed: 3, strata: 'none' };
    const sample = drawLabelSample(records, options);
    expect(sample.size).toBe(6);
    expect(sample.keys).toHaveLength(18);
    const ids = demoQuestions().map((q) => `prohist:${q.id}`);
    expect(sample.itemKeys).not.toContain(ids[0]);
    expect(sample.itemKeys).not.toContain(ids[1]);
    for (const itemKey of sample.itemKeys) for (const c of CONDITIONS) expect(sample.keys).toContain(`m|${c}|${itemKey}`);
    // Grouped by question, in annotation order.
    expect(sample.keys.slice(0, 3).every((k) => k.endsWith(`|${sample.itemKeys[0]}`))).toBe(true);
    expect(drawLabelSample(records, { ...options, drawnAt: sample.drawnAt })).toEqual(sample);
    expect(drawLabelSample(records, { ...options, seed: 4, drawnAt: sample.drawnAt }).itemKeys).not.toEqual(sample.itemKeys);
  });

  it('spreads an even draw over clusters, one question from each before any gives a second, and records each question’s π', async () => {
    const dir = makeLabelRun(tmp(), ['closed-book', 'rag@10']);
    const { records } = await readRunForLabels(dir);
    const dynastyOf = new Map(demoQuestions().map((q) => [`prohist:${q.id}`, q.dynasty]));
    const dynasties = new Set(dynastyOf.values());
    expect(dynasties.size).toBeGreaterThan(3);
    for (const seed of [1, 2, 3]) {
      const sample = drawLabelSample(records, { size: dynasties.size, baseline: 'closed-book', conditions: ['rag@10'], seed, strata: 'dynasty', allocation: 'even' });
      // One question from each cluster before any cluster gives a second.
      expect(new Set(sample.itemKeys.map((k) => dynastyOf.get(k))).size).toBe(dynasties.size);
      expect(sample.cluster).toBe('dynasty');
      expect(sample.allocation).toBe('even');
      // One question of each dynasty: a question of a dynasty of m questions was drawn with π = 1/m.
      for (const itemKey of sample.itemKeys) {
        const m = [...dynastyOf.values()].filter((d) => d === dynastyOf.get(itemKey)).length;
        expect(sample.inclusion![itemKey]).toBeCloseTo(1 / m, 12);
      }
    }
  });

  it('draws in proportion to cluster size by default: every question the same π = size ÷ questions', async () => {
    const dir = makeLabelRun(tmp(), ['closed-book', 'rag@10']);
    const { records } = await readRunForLabels(dir);
    const total = demoQuestions().length;
    const sample = drawLabelSample(records, { size: 5, baseline: 'closed-book', conditions: ['rag@10'], seed: 2, strata: 'dynasty' });
    expect(sample.allocation).toBe('proportional');
    expect(Object.values(sample.inclusion!)).toEqual(Array(5).fill(5 / total));
  });

  it('refuses to redraw a sample that has labels unless told', async () => {
    const dir = makeLabelRun(tmp(), ['closed-book', 'rag@10']);
    const { sample } = await drawRunLabelSample(dir, { size: 4 });
    expect(sample.conditions).toEqual(['closed-book', 'rag@10']);
    expect(await readLabelSample(dir)).toEqual(sample);
    const key = sample.keys[0]!;
    await appendLabels(dir, 'ann', [{ version: 1, key, itemKey: 'x', model: 'm', condition: 'c', sample: 0, annotator: 'ann', correct: 1, score: 100, at: 'now', source: 'viewer' }]);
    await expect(drawRunLabelSample(dir, { size: 4, seed: 9 })).rejects.toThrow(/already has labels/);
    expect((await drawRunLabelSample(dir, { size: 4, seed: 9, redraw: true })).sample.seed).toBe(9);
  });
});

describe('hisrag annotate: import and export', () => {
  it('imports JSONL and CSV, scores marks by the rubric rule, and round-trips through export', async () => {
    const dir = makeLabelRun(tmp(), ['closed-book', 'rag@10']);
    const q = demoQuestions()[0]!;
    const keys = verdictKeys(q.rubrics);
    const verdicts = Object.fromEntries(keys.map((k, i) => [k, i % 2 === 0 ? 1 : 0])) as Record<string, 0 | 1>;
    const jsonl = join(tmp(), 'marks.jsonl');
    writeFileSync(jsonl, JSON.stringify({ key: `m|closed-book|prohist:${q.id}`, verdicts, note: '看过' }) + '\n');
    expect((await importLabels(dir, jsonl, 'zhang')).imported).toBe(1);
    const [label] = await readLabels(dir, 'zhang');
    expect(label!.score).toBe(rubricScore(parseRubric(q.rubrics), verdicts).rs);
    expect(label!.source).toBe('import:marks.jsonl');
    expect(label!.condition).toBe('closed-book');

    const csv = join(tmp(), 'labels.csv');
    await exportLabels(dir, csv);
    const text = readFileSync(csv, 'utf8');
    expect(text.split('\n')[0]).toBe('key,annotator,itemKey,model,condition,sample,item,mark,score,note,at,source');
    expect(text.trim().split('\n')).toHaveLength(1 + keys.length);
    // The exported CSV imported for another annotator gives the same marks and score.
    await importLabels(dir, csv, 'li');
    const [again] = await readLabels(dir, 'li');
    expect(again!.verdicts).toEqual(verdicts);
    expect(again!.score).toBe(label!.score);
    expect(again!.note).toBe('看过');

    expect(label!.synthetic).toBeUndefined();

    // Labels declared synthetic (a demo's stand-in) say so in every line.
    const cli = await runCli(['annotate', dir, '--import', jsonl, '--annotator', 'standin', '--synthetic']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('imported 1 SYNTHETIC label(s) for standin');
    expect((await readLabels(dir, 'standin'))[0]!.synthetic).toBe(true);

    const out = join(tmp(), 'all.jsonl');
    expect((await exportLabels(dir, out)).exported).toBe(3);
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).annotator)).toEqual(['li', 'standin', 'zhang']);
  });

  it('names file, line and field of every bad line, and writes nothing (exit 2 from the CLI)', async () => {
    const dir = makeLabelRun(tmp(), ['closed-book', 'rag@10']);
    const [q0, q1] = demoQuestions();
    const keys = verdictKeys(q0!.rubrics);
    const all = Object.fromEntries(keys.map((k) => [k, 1]));
    const file = join(tmp(), 'bad.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ key: `m|closed-book|prohist:${q0!.id}`, verdicts: all }),
        JSON.stringify({ key: 'm|nope|prohist:x', verdicts: all }),
        JSON.stringify({ key: `m|rag@10|prohist:${q0!.id}`, verdicts: { ...all, 加分项_99: 1 } }),
        JSON.stringify({ key: `m|rag@10|prohist:${q1!.id}`, verdicts: { 加分项_1: 2 } }),
        '{oops',
      ].join('\n') + '\n',
    );
    const result = await runCli(['annotate', dir, '--import', file, '--annotator', 'zhang']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2: key: "m|nope|prohist:x" is not an answer of this run`);
    expect(result.stderr).toContain(`${file}:3: verdicts.加分项_99: not an item of this answer's rubric`);
    expect(result.stderr).toMatch(new RegExp(`bad.jsonl:4: verdicts\\.加分项_1`));
    expect(result.stderr).toContain(`${file}:5: not valid JSON`);
    expect(await readLabels(dir, 'zhang')).toEqual([]);

    const csv = join(tmp(), 'bad.csv');
    writeFileSync(csv, `key,item,mark\nm|closed-book|prohist:${q0!.id},加分项_1,yes\n`);
    await expect(importLabels(dir, csv, 'zhang')).rejects.toThrow(`${csv}:2: mark: expected 0 or 1, got "yes"`);
    writeFileSync(csv, `key,item,mark\nm|closed-book|prohist:${q0!.id},加分项_1,1\n`);
    await expect(importLabels(dir, csv, 'zhang')).rejects.toThrow(`${csv}:2: verdicts.加分项_2: missing`);
  });

  it('refuses to score a rubric answer whose rubric cannot be read, and marks of the wrong kind', async () => {
    const dir = makeLabelRun(tmp(), ['closed-book']);
    const { records } = await readRunForLabels(dir);
    expect(scoreMarks(records[0]!, undefined, { correct: 1 }, 'hisrag').problems[0]).toMatch(/rubric of prohist:.* could not be read/);
    const plain = { ...records[0]!, kind: 'reference' };
    expect(scoreMarks(plain, undefined, { correct: 1 }, 'hisrag')).toEqual({ score: 100, problems: [] });
    expect(scoreMarks(plain, undefined, { verdicts: { 加分项_1: 1 } }, 'hisrag').problems).toEqual([
      'verdicts: this answer has no rubric; mark it correct (1) or incorrect (0)',
      'correct: missing (1 correct, 0 incorrect)',
    ]);
  });

  it('draws from the CLI and says how to label', async () => {
    const dir = makeLabelRun(tmp(), ['closed-book', 'rag@10']);
    const result = await runCli(['annotate', dir, '--size', '3', '--seed', '5']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('drew 3 question(s) × 2 condition(s) = 6 answer(s) to label, seed 5');
    expect(result.stdout).toContain('hisrag view');
    expect((await readLabelSample(dir))!.keys).toHaveLength(6);
  });
});
