import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { writeTokenDepthStudy } from './tokenDepthFixture.js';

let dir: string;
let result: CliResult;
let records: RunItemRecord[];
const runDir = () => join(dir, 'runs', 'r');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hisrag-token-depth-'));
  result = await runCli(['run', writeTokenDepthStudy(dir), '--run-id', 'r', '--no-progress']);
  records = readFileSync(join(runDir(), 'items.jsonl'), 'utf8').trim().split('\n').map((line) => RunItemRecordSchema.parse(JSON.parse(line)));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('depth as a context budget in tokens, on two corpora chunked differently', () => {
  it('runs a condition per retriever × budget, named `<retriever>/rag@<tokens>tok`', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    for (const name of ['small/rag@150tok', 'small/rag@600tok', 'large/rag@300tok', 'large/rag@30']) expect(result.stdout).toMatch(new RegExp(`^${name}\\s`, 'm'));
  });

  it('never exceeds the budget and fills it to within one chunk, checked against the chunk texts and the ranking', () => {
    const budgeted = records.filter((r) => r.contextTokens !== undefined);
    expect(budgeted).toHaveLength(2 * 3 * 10);
    let filledBeyondOneChunk = 0;
    for (const r of budgeted) {
      const budget = r.contextTokens!;
      const tokens = r.retrieved.reduce((sum, c) => sum + estimateTokens(c.text), 0);
      expect(r.k).toBeNull();
      expect(r.context).toEqual({ chunks: r.retrieved.length, tokens });
      expect(tokens).toBeLessThanOrEqual(budget);
      // The ranking: the same retriever's k=30 list for the same question.
      const deep = records.find((d) => d.retriever === r.retriever && d.k === 30 && d.itemId === r.itemId)!;
      const ranking = deep.retrieved;
      expect(r.retrieved.map((c) => c.id)).toEqual(ranking.slice(0, r.retrieved.length).map((c) => c.id));
      const clipped = r.retrieved.length === 1 && r.retrieved[0]!.text !== ranking[0]!.text;
      if (clipped) {
        // The best chunk alone was over the budget: cut to it, a prefix of its text.
        expect(ranking[0]!.text.startsWith(r.retrieved[0]!.text)).toBe(true);
        expect(estimateTokens(ranking[0]!.text)).toBeGreaterThan(budget);
        continue;
      }
      for (const [i, c] of r.retrieved.entries()) expect(c.text).toBe(ranking[i]!.text);
      const next = ranking[r.retrieved.length];
      if (next) expect(tokens + estimateTokens(next.text)).toBeGreaterThan(budget);
      else expect(ranking.length).toBeLessThan(30);
      if (next) filledBeyondOneChunk += 1;
    }
    // The check above bit: most budgets stopped at a next chunk that did not fit.
    expect(filledBeyondOneChunk).toBeGreaterThan(20);
  });

  it('records the chunks and context tokens of every retrieving answer, also at a depth k', () => {
    for (const r of records.filter((x) => x.k !== null)) {
      expect(r.context!.chunks).toBe(r.contextIds.length);
      expect(r.context!.tokens).toBe(r.retrieved.filter((c) => r.contextIds.includes(c.id)).reduce((sum, c) => sum + estimateTokens(c.text), 0));
    }
    expect(records.find((r) => r.condition === 'closed-book')!.context).toBeUndefined();
  });
});
