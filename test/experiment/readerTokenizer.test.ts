import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBpeTokenizer } from '../../src/models/fixture/bpeTokenizer.js';
import { loadTokenCounter, loadTokenizerSpec } from '../../src/chunking/tokenCounter.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { writeTokenDepthStudy } from './tokenDepthFixture.js';

/**
 * BPE by the textbook, written here from the tokenizer.json alone: start from characters, merge the
 * adjacent pair of lowest merge rank (every occurrence, left to right) until no pair has a rank.
 */
function referenceBpeCount(tokenizerFile: string): (text: string) => number {
  const { model } = JSON.parse(readFileSync(tokenizerFile, 'utf8')) as { model: { merges: [string, string][] } };
  const rank = new Map(model.merges.map(([a, b], i) => [`${a}\u0000${b}`, i]));
  return (text) => {
    let tokens = Array.from(text);
    for (;;) {
      let best: [number, string, string] | undefined;
      for (let i = 0; i + 1 < tokens.length; i++) {
        const r = rank.get(`${tokens[i]}\u0000${tokens[i + 1]}`);
        if (r !== undefined && (!best || r < best[0])) best = [r, tokens[i]!, tokens[i + 1]!];
      }
      if (!best) return tokens.length;
      const [, left, right] = best;
      const merged: string[] = [];
      for (let i = 0; i < tokens.length; i++) {
        if (i + 1 < tokens.length && tokens[i] === left && tokens[i + 1] === right) {
          merged.push(left + right);
          i++;
        } else merged.push(tokens[i]!);
      }
      tokens = merged;
    }
  };
}

let dir: string;
let tokenizerDir: string;
let result: CliResult;
let records: RunItemRecord[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hisrag-reader-tokens-'));
  const config = writeTokenDepthStudy(dir, { name: 'bpe' });
  const texts = readFileSync(join(dir, 'source.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { text: string }).text);
  tokenizerDir = await writeBpeTokenizer(join(dir, 'reader-bpe'), texts, 80);
  const yaml = readFileSync(config, 'utf8');
  expect(yaml).toContain('models: [{ name: extractive }]');
  writeFileSync(config, yaml.replace('models: [{ name: extractive }]', `models: [{ name: extractive, tokenizer: ${tokenizerDir} }]`));
  result = await runCli(['run', config, '--run-id', 'r', '--no-progress']);
  records = readFileSync(join(dir, 'runs', 'r', 'items.jsonl'), 'utf8').trim().split('\n').map((line) => RunItemRecordSchema.parse(JSON.parse(line)));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a reader given its own tokenizer (a BPE tokenizer.json trained on the corpus)', () => {
  it('runs, and says which tokens its context is counted in', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).toContain('context counted in tokens (reader-bpe tokenizer)');
  });

  it('loads a tokenizer whose counts are the textbook BPE counts, and differ from the CJK estimate', async () => {
    const count = await loadTokenCounter(tokenizerDir);
    const reference = referenceBpeCount(join(tokenizerDir, 'tokenizer.json'));
    const texts = records.flatMap((r) => r.retrieved.map((c) => c.text)).slice(0, 200);
    for (const text of texts) expect(count(text)).toBe(reference(text));
    // Merges make the BPE count smaller than one token a character for this corpus.
    expect(texts.some((text) => reference(text) < estimateTokens(text))).toBe(true);
  });

  it("every record's context.tokens is the tokenizer's count of its passages (±1 a passage), and no budget is exceeded in its tokens", () => {
    const reference = referenceBpeCount(join(tokenizerDir, 'tokenizer.json'));
    const withContext = records.filter((r) => r.context !== undefined);
    expect(withContext.length).toBeGreaterThan(0);
    let differsFromEstimate = 0;
    for (const r of withContext) {
      const placed = r.retrieved.filter((c) => r.contextIds.includes(c.id));
      const tokens = placed.reduce((sum, c) => sum + reference(c.text), 0);
      expect(Math.abs(r.context!.tokens - tokens)).toBeLessThanOrEqual(placed.length);
      if (r.contextTokens !== undefined) expect(tokens).toBeLessThanOrEqual(r.contextTokens);
      if (placed.reduce((sum, c) => sum + estimateTokens(c.text), 0) !== tokens) differsFromEstimate++;
    }
    expect(differsFromEstimate).toBeGreaterThan(0);
    // Budgets fill further in the reader's tokens than the estimate allows: some budgeted list holds more than the estimate would fit.
    const budgeted = withContext.filter((r) => r.contextTokens !== undefined);
    expect(budgeted.some((r) => r.retrieved.reduce((sum, c) => sum + estimateTokens(c.text), 0) > r.contextTokens!)).toBe(true);
  });
});

describe('a reader counted in an OpenAI encoding (`tokenizer: tiktoken:cl100k_base`)', () => {
  let openaiDir: string;
  let dryRun: CliResult;
  let run: CliResult;
  let openaiRecords: RunItemRecord[];
  beforeAll(async () => {
    openaiDir = mkdtempSync(join(tmpdir(), 'hisrag-reader-tiktoken-'));
    const config = writeTokenDepthStudy(openaiDir, { name: 'tiktoken' });
    writeFileSync(config, readFileSync(config, 'utf8').replace('models: [{ name: extractive }]', 'models: [{ name: extractive, tokenizer: "tiktoken:cl100k_base" }]'));
    dryRun = await runCli(['run', config, '--dry-run']);
    run = await runCli(['run', config, '--run-id', 'r', '--no-progress']);
    openaiRecords = readFileSync(join(openaiDir, 'runs', 'r', 'items.jsonl'), 'utf8').trim().split('\n').map((line) => RunItemRecordSchema.parse(JSON.parse(line)));
  }, 180_000);
  afterAll(() => rmSync(openaiDir, { recursive: true, force: true }));

  it('names the encoding in the run and in the dry run\'s prompt-token figures', () => {
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).toContain('context counted in tokens (cl100k_base encoding)');
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain('tokens (cl100k_base encoding)');
  });

  it("counts every record's context in the encoding's tokens (the counter the cookbook's golden counts check) and keeps every budget in them", async () => {
    const count = await loadTokenizerSpec('tiktoken:cl100k_base');
    const withContext = openaiRecords.filter((r) => r.context !== undefined);
    expect(withContext.length).toBeGreaterThan(0);
    for (const r of withContext) {
      const placed = r.retrieved.filter((c) => r.contextIds.includes(c.id));
      const tokens = placed.reduce((sum, c) => sum + count(c.text), 0);
      expect(Math.abs(r.context!.tokens - tokens)).toBeLessThanOrEqual(placed.length);
      if (r.contextTokens !== undefined) expect(tokens).toBeLessThanOrEqual(r.contextTokens);
    }
    // The unit travels with the numbers: on every record, on the summary's cells, on the context-tokens figure's axis.
    for (const r of withContext) expect(r.context!.unit).toBe('tokens (cl100k_base encoding)');
    const summary = JSON.parse(readFileSync(join(openaiDir, 'runs', 'r', 'summary.json'), 'utf8')) as { cells: { context?: { unit?: string } }[] };
    expect(summary.cells.filter((c) => c.context).every((c) => c.context!.unit === 'tokens (cl100k_base encoding)')).toBe(true);
    const figure = readFileSync(join(openaiDir, 'runs', 'r', 'figures', 'score-vs-context-tokens.vl.json'), 'utf8');
    expect(figure).toContain('context tokens (cl100k_base encoding) (log)');
    expect(figure).not.toContain('tokens (estimate)');
    // cl100k splits Han text differently from one token a character: the counts are not the estimate's.
    expect(withContext.some((r) => r.context!.tokens !== r.retrieved.filter((c) => r.contextIds.includes(c.id)).reduce((sum, c) => sum + estimateTokens(c.text), 0))).toBe(true);
  });
});
