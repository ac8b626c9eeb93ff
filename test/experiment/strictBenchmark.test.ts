import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/runCli.js';

// A model at a port nothing listens on: a run that reached a model call would fail with exit 3, not 2.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-strict-bench-'));
  await writeFile(join(dir, 'source.jsonl'), '{"id":"a","title":"科舉","text":"科舉是中國古代通過考試選拔官吏的制度。"}\n{"id":"b","title":"進士","text":"進士是科舉殿試及第者的稱號。"}\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runWith(records: unknown[], name: string, model = 'openai, baseURL: "http://127.0.0.1:9/v1", model: m', output = 'runs') {
  const bench = join(dir, `${name}.jsonl`);
  await writeFile(bench, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const config = join(dir, `${name}.yaml`);
  await writeFile(
    config,
    [
      `name: ${name}`,
      `output: ${join(dir, output)}`,
      'prepare:',
      `  corpora: [{ name: mini, builder: { name: json, input: ${join(dir, 'source.jsonl')} }, out: ${join(dir, 'corpus')}, chunking: { maxSize: 500, unit: chars } }]`,
      `  indexes: [{ out: ${join(dir, 'index')}, corpus: ${join(dir, 'corpus')}, retriever: bm25 }]`,
      `benchmark: { name: jsonl, file: ${bench} }`,
      `retrieval: { retriever: { name: bm25, index: ${join(dir, 'index')} }, k: [1] }`,
      'strategies: [closed-book, rag]',
      `models: [{ name: ${model} }]`,
      '',
    ].join('\n'),
  );
  return { bench, result: await runCli(['run', config, '--no-progress']) };
}

const runFolders = () => (existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : []);

describe('a benchmark file is checked before any model call', () => {
  it('a misspelt field: exit 2 naming file, line, field and the near miss; no run folder left', async () => {
    const { bench, result } = await runWith([{ id: 'q1', question: '何謂進士？', answer: '殿試及第者', gold_chunk_id: ['mini:b:0'] }], 'misspelt');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bench}: line 1: gold_chunk_id: unknown field of a jsonl benchmark record (did you mean "gold_chunk_ids"?)`);
    expect(runFolders()).toEqual([]);
  }, 60_000);

  it('a gold id not in the index: exit 2 naming the id, file and line', async () => {
    const { bench, result } = await runWith(
      [
        { id: 'q1', question: '何謂進士？', answer: '殿試及第者', gold_chunk_ids: ['mini:b:0'] },
        { id: 'q2', question: '何謂科舉？', answer: '考試選官', gold_chunk_ids: ['mini:a:0', 'mini:zz:9'] },
      ],
      'unknown-gold',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bench}: line 2: gold_chunk_ids: "mini:zz:9" not in ${join(dir, 'index')}`);
    expect(result.stderr).not.toContain('"mini:a:0"');
    expect(runFolders()).toEqual([]);
  }, 60_000);

  it('a duplicate id: exit 2 naming the file and both lines', async () => {
    const { bench, result } = await runWith(
      [
        { id: 'q1', question: '何謂進士？', answer: '殿試及第者' },
        { id: 'q1', question: '何謂科舉？', answer: '考試選官' },
      ],
      'duplicate',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bench}: line 2: id "q1" appears twice (first at line 1)`);
  }, 60_000);
});

describe('what a run announces', () => {
  it('names the metric, and announces no rubric judge for a benchmark without rubrics', async () => {
    const { result } = await runWith([{ id: 'q1', question: '何謂進士？', answer: '進士是科舉殿試及第者的稱號', gold_chunk_ids: ['mini:b:0'] }], 'no-rubrics', 'extractive', 'runs-announce');
    expect(result.code).toBe(0);
    const out = result.stdout + result.stderr;
    expect(out).toContain('metric: ROUGE-L (0–100), character ROUGE-L F1 ×100 against the reference answer');
    expect(out).not.toMatch(/judge: (lexical|llm)/);
    expect(out).not.toContain('answer extractor');
    expect(out).toMatch(/condition +mean ROUGE-L \(0–100\)/);
  }, 120_000);
});
