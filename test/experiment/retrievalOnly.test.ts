import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus } from '../../src/corpus/build.js';
import { readChunks } from '../../src/runFiles/corpusFiles.js';
import type { RetrievalStudySummary } from '../../src/app/retrievalStudy.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { drawnLines } from '../helpers/figureLines.js';
import { writeTokenDepthStudy } from './tokenDepthFixture.js';

let dir: string;
let result: CliResult;
let study: RetrievalStudySummary;
const chunkText = new Map<string, string>();
const questions: { id: string; question: string; answer: string; gold_chunk_ids: string[]; gold_evidence: string[] }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hisrag-retrieval-only-'));
  writeTokenDepthStudy(dir); // the source documents; the config is written here
  // The corpus the run prepares (same settings), built first to name gold chunks by id.
  await buildCorpus({ name: 'mini-s', builder: { name: 'json', input: join(dir, 'source.jsonl') }, out: join(dir, 'mini-s'), chunking: { maxSize: 40, unit: 'chars' } });
  for await (const chunk of readChunks(join(dir, 'mini-s'))) chunkText.set(chunk.id, chunk.text);
  // Each question asks for one sentence's office; its gold: the chunks holding that sentence's year, and the sentence itself as evidence.
  for (let q = 0; q < 10; q++) {
    const d = q % 12;
    const year = 1500 + d * 10 + (q % 5);
    const gold = [...chunkText].filter(([id, text]) => id.startsWith(`mini-s:d${d}:`) && text.includes(`${year}年`)).map(([id]) => id);
    expect(gold.length).toBeGreaterThan(0);
    questions.push({ id: `q${q}`, question: `張${d}於${year}年任何官？`, answer: '官', gold_chunk_ids: gold, gold_evidence: [`張${d}於${year}年任`] });
  }
  writeFileSync(join(dir, 'bench.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
  const config = join(dir, 'retrieval.yaml');
  writeFileSync(
    config,
    [
      'name: retrieval',
      `output: ${join(dir, 'runs')}`,
      'prepare:',
      '  corpora:',
      `    - { name: mini-s, builder: { name: json, input: ${join(dir, 'source.jsonl')} }, out: ${join(dir, 'mini-s')}, chunking: { maxSize: 40, unit: chars } }`,
      '  indexes:',
      `    - { out: ${join(dir, 'mini-s-bm25')}, corpus: ${join(dir, 'mini-s')}, retriever: bm25 }`,
      `benchmark: { name: jsonl, file: ${join(dir, 'bench.jsonl')} }`,
      'retrieval:',
      '  retrievers:',
      `    - { name: bm25, label: bm25, index: ${join(dir, 'mini-s-bm25')} }`,
      `    - { name: random, label: random, index: ${join(dir, 'mini-s-bm25')} }`,
      '  k: [1, 5]',
      'scoring: { bootstrapResamples: 200 }',
      '',
    ].join('\n'),
  );
  result = await runCli(['run', config, '--run-id', 'r', '--no-progress']);
  if (result.code !== 0) throw new Error(`hisrag run failed (${result.code}): ${result.stderr}${result.stdout}`);
  study = JSON.parse(readFileSync(join(dir, 'runs', 'r', 'retrieval-summary.json'), 'utf8')) as RetrievalStudySummary;
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a config without models: a retrieval-only study', () => {
  it('runs with exit 0 and answers nothing (no generator, no answer records)', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain('retrieval only (no models)');
    expect(existsSync(join(dir, 'runs', 'r', 'items.jsonl'))).toBe(false);
  });

  it('reports nDCG, recall, MRR and span IoU with intervals per retriever × depth', () => {
    expect(study.cells.map((c) => `${c.retriever}@${c.k}`)).toEqual(['bm25@1', 'bm25@5', 'random@1', 'random@5']);
    for (const cell of study.cells) {
      for (const metric of ['ndcg', 'recall', 'mrr', 'charIoU']) {
        const e = cell.metrics[metric]!;
        expect(e.n).toBe(10);
        expect(e.ciLow).toBeLessThanOrEqual(e.mean);
        expect(e.ciHigh).toBeGreaterThanOrEqual(e.mean);
      }
    }
  });

  it('at k = 1 MRR equals nDCG (a first hit counts 1 in both, else 0), and BM25 finds the gold first more often than random', () => {
    // At k = 1 both MRR and nDCG are 1 when the top chunk is gold, else 0: equal per question, so their means are equal.
    const bm25At1 = study.cells.find((c) => c.retriever === 'bm25' && c.k === 1)!;
    expect(bm25At1.metrics.mrr!.mean).toBeCloseTo(bm25At1.metrics.ndcg!.mean, 10);
    // The year in the question names the gold chunk: BM25 should find it first far more often than random.
    expect(bm25At1.metrics.mrr!.mean).toBeGreaterThan(study.cells.find((c) => c.retriever === 'random' && c.k === 1)!.metrics.mrr!.mean);
  });

  it('compares the retrievers pairwise at each depth with sign-flip p and Holm/BH adjustment', () => {
    const ndcg = study.comparisons.filter((c) => c.metric === 'ndcg');
    expect(ndcg.map((c) => `${c.retriever}-${c.against}@${c.k}`)).toEqual(['bm25-random@1', 'bm25-random@5']);
    const cellMean = (retriever: string, k: number) => study.cells.find((c) => c.retriever === retriever && c.k === k)!.metrics.ndcg!.mean;
    for (const c of ndcg) {
      // The paired mean difference over the same 10 questions is the difference of the means.
      expect(c.mean).toBeCloseTo(cellMean('bm25', c.k) - cellMean('random', c.k), 10);
      expect(c.pHolm).toBeGreaterThanOrEqual(c.p);
      expect(c.pBH).toBeGreaterThanOrEqual(c.p);
      expect(c.pHolm).toBeLessThanOrEqual(1);
    }
    // Holm over a family of two: the smaller p doubled.
    const smaller = ndcg.reduce((a, b) => (a.p <= b.p ? a : b));
    expect(smaller.pHolm).toBeCloseTo(Math.min(1, 2 * smaller.p), 10);
    expect(result.stdout + result.stderr).toMatch(/ndcg@1 bm25 − random: [+-]\d\.\d{3} \[/);
  });

  it('saves a figure per metric: the mean at each k as drawn, one line per retriever', () => {
    for (const metric of ['recall', 'ndcg', 'mrr', 'charIoU']) {
      const spec = JSON.parse(readFileSync(join(dir, 'runs', 'r', 'figures', `retrieval-${metric}.vl.json`), 'utf8')) as Record<string, unknown>;
      const lines = drawnLines(metric, spec).filter((l) => l.points.length > 0);
      expect(lines.map((l) => l.series).sort()).toEqual(['bm25', 'random']);
      for (const line of lines) {
        expect(line.xTitle).toMatch(/depth k/);
        const expected = study.cells.filter((c) => c.retriever === line.series).map((c) => ({ x: c.k, y: c.metrics[metric]!.mean }));
        expect(line.points.map((p) => ({ x: p.x, y: p.y })).sort((a, b) => a.x - b.x)).toEqual(expected);
      }
    }
  });
});
