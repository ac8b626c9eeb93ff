import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { DataFileError } from '../../src/errors.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { runCli } from '../helpers/runCli.js';
import { externalConfig, QA_FILE, sampleRecords } from './externalFixtures.js';

/** A saved line per question: the gold answer and evidence pages of every other question, a wrong answer and page 1 for the rest. */
function savedLines(skip: Set<string> = new Set()): Record<string, unknown>[] {
  return [...sampleRecords().values()]
    .map((r, i) => {
      const pages = JSON.parse(r.evidence_pages) as number[];
      const right = i % 2 === 0;
      return {
        itemId: r.item_id,
        answer: right ? (Array.isArray(r.answer) ? r.answer[0] : r.answer) : '不知道',
        contexts: (right && pages.length ? pages : [1]).map((page) => ({ text: `第${page}页`, page, docId: r.doc_id })),
        usage: { promptTokens: 100, completionTokens: 10 },
      };
    })
    .filter((line) => !skip.has(line.itemId));
}

function writeJsonl(dir: string, lines: unknown[]): string {
  const file = join(dir, 'answers.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

describe('the outputs method: saved answers of any system', () => {
  it('scores a file of saved answers like any condition: CI, Δ against closed-book, recall on its contexts, its reported usage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-outputs-'));
    const file = writeJsonl(dir, savedLines());
    const config = await loadExperimentConfig(externalConfig(dir, [{ name: 'outputs', label: 'saved', file }]));
    const result = await runExperiment({ config, runId: 'saved' });
    const cell = result.summary.cells.find((c) => c.condition === 'saved')!;
    expect(cell.scored).toBe(20);
    expect(cell.score.ciLow).not.toBeNull();
    expect(cell.retrieval!.recall).toBeGreaterThan(0.4);
    expect(cell.cost).toMatchObject({ promptTokens: 100, completionTokens: 10, estimatedTokens: false });
    expect(result.summary.paired.find((p) => p.condition === 'saved')!.meanDiff).not.toBeNull();
  });

  it('refuses a file with an unknown item, a line without an answer and malformed contexts: one message per problem, naming line and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-outputs-bad-'));
    const lines: unknown[] = savedLines().slice(0, 6);
    lines[1] = { itemId: 'no-such-item', answer: '千字文' };
    lines[2] = { itemId: '90001_3' };
    lines[3] = { itemId: '90001_4', answer: '否', contexts: { text: '不是列表' } };
    lines[4] = { itemId: '90001_5', answer: 'B', contexts: [{ page: 2 }, { text: '第3页', page: 'third' }] };
    const file = writeJsonl(dir, lines);
    const config = await loadExperimentConfig(externalConfig(dir, [{ name: 'outputs', label: 'saved', file }]));
    const error = await runExperiment({ config, runId: 'bad' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    const messages = (error as Error).message.split('\n').slice(1);
    expect((error as Error).message.split('\n')[0]).toBe(`${file}: 5 problems (nothing was run):`);
    expect(messages).toEqual([
      `${file}: line 2: itemId: unknown item "no-such-item" (not among the run's 20 questions; unknownItems: ignore skips such lines)`,
      `${file}: line 3: answer: missing (expected the answer as a string)`,
      `${file}: line 4: contexts: expected a list of passages (strings or objects with their text), got an object`,
      `${file}: line 5: contexts[0].text|content|pageContent|page_content: missing (expected the passage text as a string)`,
      `${file}: line 5: contexts[1].page: expected a one-based page number, got string "third"`,
    ]);
    // Nothing was answered.
    expect(await readRunRecords(join(dir, 'runs', 'bad'))).toHaveLength(0);
  });

  it('the CLI exits 2 on such a file, printing every problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-outputs-cli-'));
    const file = writeJsonl(dir, [{ itemId: '90001_1', answer: '千字文' }, 'not json', { itemId: '90001_1', answer: '又一次' }]);
    const cli = await runCli(['run', externalConfig(dir, [{ name: 'outputs', label: 'saved', file }]), '--no-progress']);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`${file}: line 2: not valid JSON`);
    expect(cli.stderr).toContain(`${file}: line 3: itemId: "90001_1" was answered already on line 1`);
  }, 30_000);

  it('counts the questions a file omits as not answered (failed, out of the means), never as 0, and scores the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-outputs-omit-'));
    const omitted = new Set(['90001_2', '90002_4', '90003_1']);
    const full = writeJsonl(mkdtempSync(join(tmpdir(), 'hisrag-outputs-full-')), savedLines());
    const partial = writeJsonl(dir, savedLines(omitted));
    // The same lines, in full and without three questions: the answered ones score alike.
    const config = await loadExperimentConfig(externalConfig(dir, [{ name: 'outputs', label: 'full', file: full }, { name: 'outputs', label: 'partial', file: partial }]));
    const printed: string[] = [];
    const result = await runExperiment({ config, runId: 'omit', log: (line) => printed.push(line) });
    // The omitted questions are named at the end of the run, not only counted.
    const failureLine = printed.find((line) => line.includes('· partial: 3 failed'))!;
    for (const id of omitted) expect(failureLine).toContain(id);
    expect(failureLine).toContain('not answered');
    const records = await readRunRecords(result.runDir);
    const partialRecords = records.filter((r) => r.condition === 'partial');
    const notAnswered = partialRecords.filter((r) => r.score.status !== 'scored');
    expect(notAnswered.map((r) => r.itemId).sort()).toEqual([...omitted].sort());
    for (const r of notAnswered) {
      expect(r.score).toMatchObject({ status: 'generation_failed', score: null });
      expect(r.error).toBe(`not answered: ${partial} has no line for item ${r.itemId} (counted as failed, never scored)`);
    }
    const cell = result.summary.cells.find((c) => c.condition === 'partial')!;
    expect(cell).toMatchObject({ items: 20, scored: 17, failed: { generation: 3, judge: 0 } });
    const fullScores = new Map(records.filter((r) => r.condition === 'full').map((r) => [r.itemId, r.score.score]));
    const kept = partialRecords.filter((r) => r.score.status === 'scored');
    for (const r of kept) expect(r.score.score).toBe(fullScores.get(r.itemId));
    expect(cell.score.mean).toBeCloseTo(kept.reduce((n, r) => n + r.score.score!, 0) / kept.length, 9);
  });

  it('maps other field names (RAGAS-style snake_case) and ignores lines of questions a filtered run leaves out, when told to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-outputs-map-'));
    const lines = savedLines().map((l) => ({ question_id: l.itemId, response: l.answer, retrieved_contexts: (l.contexts as { text: string; page: number }[]).map((c) => ({ page_content: c.text, metadata: { page: c.page } })) }));
    const file = writeJsonl(dir, lines);
    const strategy = { name: 'outputs', label: 'saved', file, itemId: 'question_id', unknownItems: 'ignore', response: { answer: 'response', contexts: 'retrieved_contexts', contextText: 'page_content', contextPage: 'metadata.page' } };
    const config = await loadExperimentConfig(externalConfig(dir, [strategy], { benchmark: { name: 'longhisdoc', file: QA_FILE, limit: 5 } }));
    const result = await runExperiment({ config, runId: 'mapped' });
    const cell = result.summary.cells.find((c) => c.condition === 'saved')!;
    expect(cell).toMatchObject({ items: 5, scored: 5 });
    expect(cell.retrieval).not.toBeNull();
  });
});
