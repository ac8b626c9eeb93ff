import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerScoreCommands } from '../../src/cli/commands/score.js';
import { main } from '../../src/cli/main.js';
import { InputError } from '../../src/errors.js';

function program(): Command {
  const root = new Command('hisrag').exitOverride();
  registerScoreCommands(root);
  for (const command of root.commands) command.exitOverride();
  return root;
}

/** Runs a score command, returning what it printed to stdout. */
async function run(args: string[]): Promise<string> {
  let printed = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    printed += String(chunk);
    return true;
  });
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await program().parseAsync(['node', 'hisrag', 'score', ...args], { from: 'node' });
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return printed;
}

const readJsonl = async (path: string) =>
  (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

const quirky = '加分项：1、指出科举始于隋朝{+5}\n2、说明殿试{+5}\n减分项：\n1、史实错误{-5}';
const rubricLines = [
  { id: 'a', category: '简答题', rubrics: quirky, judge_output: '加分项_1: 1\n加分项_2: 0\n减分项_1: 0', response: '科举始于隋朝。' },
  { id: 'b', category: '论述题', rubrics: '加分项：\n1、甲{+1}\n2、乙{+7}', judge_output: '<think>…</think>加分项_1：1\n加分项_2：0\n说明：略' },
  { id: 'c', category: '八股文', rubrics: quirky, judge_output: '加分项_1: 1\n加分项_2: 1\n减分项_1: 0', response: '科举'.repeat(20), length_constraint: '10' },
  { id: 'd', category: '选择题', answer: 'ADEF', response: '\\boxed{AD}' },
  { id: 'e', category: '简答题', rubrics: quirky, judge_output: '加分项_1: 1', response: '答案' },
  { id: 'f', category: '名词解释', rubrics: quirky, judge_output: '加分项_1: 1\n加分项_2: 1\n减分项_1: 0', response: '' },
];

describe('hisrag score rubric', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hisrag-score-cli-'));
    await writeFile(join(dir, 'in.jsonl'), rubricLines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('adds rs and rs_raw to every line', async () => {
    const printed = await run(['rubric', '--input', join(dir, 'in.jsonl'), '--output', join(dir, 'out.jsonl')]);
    const out = await readJsonl(join(dir, 'out.jsonl'));
    expect(out.map((l) => [l.id, l.rs, l.rs_raw])).toEqual([
      ['a', 50, 50],
      ['b', 12, 12.5],
      ['c', 0, 0],
      ['d', 60, 60],
      ['e', null, null],
      ['f', 0, 0],
    ]);
    expect(out[2].rule).toBe('over-length');
    expect(out[4]).toMatchObject({ status: 'judge_failed' });
    expect(out[1].stray_lines).toBe(1);
    expect(printed).toContain('overall');
    expect(printed).toContain('by category:');
    expect(printed).toContain('judge failures 1');
  });

  it('reproduces the reference scorer with --compat reference', async () => {
    await run(['rubric', '--input', join(dir, 'in.jsonl'), '--output', join(dir, 'ref.jsonl'), '--compat', 'reference']);
    const out = await readJsonl(join(dir, 'ref.jsonl'));
    // Item 1 on the header line is dropped: only 加分项_2 {+5} remains.
    expect(out[0]).toMatchObject({ rs: 0, rs_raw: 0 });
    // A missing verdict counts as 0 instead of failing.
    expect(out[4]).toMatchObject({ status: 'scored', rs: 0 });
  });

  it('writes the good records and reports bad ones by index and field', async () => {
    const lines = [JSON.stringify(rubricLines[0]), '{not json', JSON.stringify({ category: '简答题', judge_output: '加分项_1: 1' })];
    await writeFile(join(dir, 'bad.jsonl'), lines.join('\n') + '\n');
    const attempt = run(['rubric', '--input', join(dir, 'bad.jsonl'), '--output', join(dir, 'bad.out.jsonl')]);
    await expect(attempt).rejects.toThrow(InputError);
    await expect(attempt).rejects.toThrow(/record 1 \(line 2\): not valid JSON[\s\S]*record 2 \(line 3\): rubrics: missing/);
    expect(await readJsonl(join(dir, 'bad.out.jsonl'))).toHaveLength(1);
  });

  it('exits 2 on bad input through the CLI entry point', async () => {
    await writeFile(join(dir, 'bad2.jsonl'), '{"category": "选择题", "response": "x"}\n');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const code = await main(['node', 'hisrag', 'score', 'rubric', '--input', join(dir, 'bad2.jsonl'), '--output', join(dir, 'bad2.out.jsonl')]);
    const message = stderr.mock.calls.map((c) => String(c[0])).join('');
    stderr.mockRestore();
    stdout.mockRestore();
    expect(code).toBe(2);
    expect(message).toContain('record 0 (line 1): answer: missing');
  });

  it('rejects an unknown --compat mode', async () => {
    await expect(run(['rubric', '--input', 'x', '--output', 'y', '--compat', 'paper'])).rejects.toThrow(/--compat/);
  });
});

describe('hisrag score longhisdoc', () => {
  let dir: string;
  const record = (item: number, answerType: string, answer: unknown, extra: Record<string, unknown>) => ({
    doc_id: '9242',
    item_id: `9242_${item}`,
    question: '问题',
    answer,
    evidence_pages: '[3]',
    input_pages: '[1, 2, 3]',
    type: item === 4 ? 'Unanswerable' : 'Single Page',
    answer_type: answerType,
    evidence_modal: item === 4 ? '' : 'text',
    book_name: '《左传》',
    guji_type_zh: '经藏',
    guji_type_en: 'Classics',
    ...extra,
  });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hisrag-score-lhd-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('adds a score per record and prints the breakdowns', async () => {
    const input = {
      '9242': [
        record(1, 'Str', '伯牛', { response: '据书中记载，答案：伯牛。' }),
        record(2, 'Int', ['3', '三'], { response: '哀悼三天', extracted: '3' }),
        record(3, 'List', ['伏羲', '神农'], { response: '伏羲、神农、黄帝、炎帝' }),
        record(4, 'None', '无法回答', { response: '书中未提及，无法回答。' }),
        record(5, 'Bool', '是', {}),
      ],
    };
    await writeFile(join(dir, 'in.json'), JSON.stringify(input));
    const printed = await run(['longhisdoc', '--input', join(dir, 'in.json'), '--output', join(dir, 'out.json')]);
    const out = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8'));
    const scores = out['9242'].map((r: { score: number }) => r.score);
    expect(scores[0]).toBe(1);
    expect(scores[1]).toBe(1);
    expect(scores[2]).toBeCloseTo(Math.sqrt(0.5));
    expect(scores[3]).toBe(1);
    expect(scores[4]).toBe(0);
    expect(out['9242'][0].extracted).toBe('伯牛');
    for (const heading of ['overall', 'by type:', 'by answer_type:', 'by evidence_modal:', 'Unanswerable']) expect(printed).toContain(heading);
  });

  it('reports an unknown answer type and a missing field by record, and writes the rest', async () => {
    const input = {
      '9242': [record(1, 'Float', '伯牛', { response: '伯牛' }), record(2, 'Str', '伯牛', { response: '伯牛' })],
      '9243': [{ ...record(3, 'Str', '甲', {}), question: undefined }],
    };
    await writeFile(join(dir, 'bad.json'), JSON.stringify(input));
    const attempt = run(['longhisdoc', '--input', join(dir, 'bad.json'), '--output', join(dir, 'bad.out.json')]);
    await expect(attempt).rejects.toThrow(/record 9242\[0\]: answer_type[\s\S]*record 9243\[0\]: question/);
    const out = JSON.parse(await readFile(join(dir, 'bad.out.json'), 'utf8'));
    expect(out['9242']).toHaveLength(1);
  });

  it('rejects a file that is not JSON', async () => {
    await writeFile(join(dir, 'broken.json'), '{"9242": [');
    await expect(run(['longhisdoc', '--input', join(dir, 'broken.json'), '--output', join(dir, 'x.json')])).rejects.toThrow(/not valid JSON/);
  });
});

describe('hisrag score agreement', () => {
  it('prints Pearson r at item and answer level', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hisrag-agree-'));
    const a = [
      { id: 'q1', verdicts: { 加分项_1: 1, 加分项_2: 0 } },
      { id: 'q2', verdicts: { 加分项_1: 0, 加分项_2: 0 } },
      { id: 'q3', verdicts: { 加分项_1: 1, 加分项_2: 1 } },
    ];
    await writeFile(join(dir, 'a.jsonl'), a.map((l) => JSON.stringify(l)).join('\n'));
    await writeFile(join(dir, 'b.jsonl'), a.map((l) => JSON.stringify(l)).join('\n'));
    const printed = await run(['agreement', '--a', join(dir, 'a.jsonl'), '--b', join(dir, 'b.jsonl')]);
    await rm(dir, { recursive: true, force: true });
    expect(printed).toMatch(/rubric-item level\s+Pearson r = 1\.000\s+\(n=6/);
    expect(printed).toMatch(/answer level\s+Pearson r = 1\.000\s+\(n=3/);
  });

  it('accepts the output of `hisrag score rubric`, leaving out and counting its multiple-choice lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hisrag-agree-rubric-'));
    await writeFile(join(dir, 'in.jsonl'), rubricLines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await run(['rubric', '--input', join(dir, 'in.jsonl'), '--output', join(dir, 'scored.jsonl')]);
    const printed = await run(['agreement', '--a', join(dir, 'scored.jsonl'), '--b', join(dir, 'scored.jsonl')]);
    await rm(dir, { recursive: true, force: true });
    expect(printed).toMatch(/answer level\s+Pearson r = [\d.]+\s+\(n=5 answers\)/);
    expect(printed).toContain('left out: 1 multiple-choice lines in --a, 1 in --b');
  });
});
