import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarks } from '../../src/benchmarks/registry.js';
import { DataFileError } from '../../src/errors.js';

const record = (over: Record<string, unknown> = {}) => ({
  id: 'q1',
  category: '名词解释',
  question: '请解释“糊名”。',
  rubrics: '加分项：1、指出糊名即弥封{+2}',
  reference_answer: '糊名又称弥封。',
  level_of_difficulty: 2,
  dynasty: '宋',
  topic: '科举',
  ...over,
});

function file(content: string, name = 'bench.json'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hisrag-bench-')), name);
  writeFileSync(path, content);
  return path;
}

async function load(spec: Record<string, unknown>) {
  return (await benchmarks.create({ name: 'prohist', ...spec } as { name: string }, undefined)).load();
}

describe('prohist loader', () => {
  it('maps categories to tasks T1–T4 and multiple choice', async () => {
    const path = file(
      JSON.stringify([
        record({ id: 'a', category: '名词解释' }),
        record({ id: 'b', category: '简答题' }),
        record({ id: 'c', category: '论述题' }),
        record({ id: 'd', category: '策论题', length_constraint: 800 }),
        record({ id: 'e', category: '八股文' }),
        record({ id: 'f', category: '选择题', answer: 'adef', rubrics: undefined }),
      ]),
    );
    const items = await load({ file: path });
    expect(items.map((i) => i.task)).toEqual(['T1', 'T2', 'T3', 'T4', 'T4', 'MCQ']);
    expect(items.map((i) => i.kind)).toEqual(['rubric', 'rubric', 'rubric', 'rubric', 'rubric', 'mcq']);
    expect(items[3]!.lengthConstraint).toBe(800);
    expect(items[5]!.answer).toBe('ADEF');
  });

  it('keeps difficulty, dynasty, topic and declared metadata fields in meta; declared ones become groups', async () => {
    const [item] = await load({ file: file(JSON.stringify([record({ source: '某书' })])), metadata: ['source'] });
    expect(item!.meta).toMatchObject({ level_of_difficulty: 2, dynasty: '宋', topic: '科举', source: '某书' });
    expect(item!.groups).toEqual({ source: '某书' });
    expect(item!.referenceAnswer).toBe('糊名又称弥封。');
    expect(item!.rubrics).toContain('加分项');
  });

  it('refuses an undeclared unknown field, naming file, record and field, with a near miss suggested', async () => {
    const path = file(JSON.stringify([record(), record({ id: 'x2', refrence_answer: '…' })]));
    await expect(load({ file: path })).rejects.toThrow(`${path}: [1]: refrence_answer: unknown field of a prohist benchmark record (did you mean "reference_answer"?)`);
  });

  it('names both places of a duplicate id', async () => {
    const path = file([JSON.stringify(record({ id: 'q1' })), JSON.stringify(record({ id: 'q2' })), JSON.stringify(record({ id: 'q1' }))].join('\n'), 'bench.jsonl');
    await expect(load({ file: path })).rejects.toThrow(`${path}: line 3: id "q1" appears twice (first at line 1)`);
  });

  it('keeps an unlisted category as its own task', async () => {
    const [item] = await load({ file: file(JSON.stringify([record({ category: '史料分析题' })])) });
    expect(item!.task).toBe('史料分析题');
  });

  it('reads JSONL as well as a JSON array', async () => {
    const path = file([record({ id: 'a' }), record({ id: 'b' })].map((r) => JSON.stringify(r)).join('\n') + '\n', 'bench.jsonl');
    expect((await load({ file: path })).map((i) => i.id)).toEqual(['a', 'b']);
  });

  it('names file, record index and field of a bad record', async () => {
    const path = file(JSON.stringify([record(), record({ question: 42 })]));
    const error = await load({ file: path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toContain(`${path}: [1].question`);
  });

  it('names the line of a bad JSONL record', async () => {
    const path = file(`${JSON.stringify(record())}\n${JSON.stringify(record({ category: '' }))}\n`, 'b.jsonl');
    await expect(load({ file: path })).rejects.toThrow(`${path}: line 2: category`);
  });

  it('requires answer letters on a multiple-choice record', async () => {
    const path = file(JSON.stringify([record({ category: '选择题' })]));
    await expect(load({ file: path })).rejects.toThrow('[0].answer');
  });

  it('rejects an unknown parameter in the spec', () => {
    expect(() => benchmarks.parse({ name: 'prohist', file: 'x', categorys: ['名词解释'] }, 'benchmark')).toThrow(/categorys/);
  });

  it('describes the file with its hash and the filters in use', async () => {
    const benchmark = await benchmarks.create({ name: 'prohist', file: file(JSON.stringify([record()])), tasks: ['T1'] }, undefined);
    await benchmark.load();
    expect(benchmark.describe()).toMatchObject({ name: 'prohist', total: 1, count: 1, filter: { tasks: ['T1'] } });
    expect(benchmark.describe().sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('loads the bundled demo benchmark', async () => {
    const items = await load({ file: 'experiments/data/demo-prohist.json' });
    expect(items.length).toBeGreaterThan(0);
  });
});

describe('prohist loader file formats', () => {
  it('reads a one-record JSONL file', async () => {
    const path = file(JSON.stringify(record({ id: 'only' })) + '\n', 'one.jsonl');
    expect((await load({ file: path })).map((i) => i.id)).toEqual(['only']);
  });

  it('reads JSONL saved under a .json name', async () => {
    const path = file([record({ id: 'a' }), record({ id: 'b' })].map((r) => JSON.stringify(r)).join('\n'), 'lines.json');
    expect((await load({ file: path })).map((i) => i.id)).toEqual(['a', 'b']);
  });

  it('reports broken JSON as such, naming the file', async () => {
    const path = file('[{"id": "a",', 'broken.json');
    await expect(load({ file: path })).rejects.toThrow(`${path}: not valid JSON`);
  });
});

describe('prohist answers outside multiple choice', () => {
  it('keeps a free-text answer of a rubric question as its reference', async () => {
    const [item] = await load({ file: file(JSON.stringify([record({ answer: '糊名即弥封', reference_answer: undefined })])) });
    expect(item).toMatchObject({ kind: 'rubric', referenceAnswer: '糊名即弥封' });
  });

  it('refuses a multiple-choice answer that is not letters', async () => {
    const path = file(JSON.stringify([record({ category: '选择题', answer: '第一项' })]));
    await expect(load({ file: path })).rejects.toThrow('[0].answer');
  });

  it('refuses an open question without rubrics, naming the file, the record and the field — never scoring it by another metric', async () => {
    const path = file(JSON.stringify([record({ id: 'ok' }), record({ id: 'no-rubric', rubrics: undefined })]));
    const loading = load({ file: path });
    await expect(loading).rejects.toThrow(DataFileError);
    await expect(loading).rejects.toThrow(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\[1\\]\\.rubrics: missing`));
    await expect(load({ file: file(JSON.stringify([record({ rubrics: '  ' })])) })).rejects.toThrow(/rubrics: missing/);
  });

  it('with onUnscorable: skip, leaves such records out and counts them', async () => {
    const path = file(JSON.stringify([record({ id: 'ok' }), record({ id: 'r1', rubrics: undefined }), record({ id: 'r2', rubrics: '' })]));
    const benchmark = await benchmarks.create({ name: 'prohist', file: path, onUnscorable: 'skip' } as { name: string }, undefined);
    const items = await benchmark.load();
    expect(items.map((i) => i.id)).toEqual(['ok']);
    expect(benchmark.describe()).toMatchObject({ skippedUnscorable: { count: 2, ids: ['r1', 'r2'] } });
    // Any other problem is still an error.
    await expect(load({ file: file(JSON.stringify([record({ question: '' })])), onUnscorable: 'skip' })).rejects.toThrow(/question/);
  });
});
