import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/runCli.js';

/** experiments/demo-rerank.yaml with every artefact and the run written into a temp dir. */
function demoRerankConfig(dir: string): string {
  const config = parse(readFileSync(join(REPO_ROOT, 'experiments/demo-rerank.yaml'), 'utf8'));
  config.output = join(dir, 'runs');
  config.prepare.fixtureModel.out = join(dir, 'embedder');
  config.prepare.rerankerModel.out = join(dir, 'reranker');
  config.prepare.corpora[0].out = join(dir, 'corpus');
  config.prepare.indexes[0].out = join(dir, 'index');
  config.prepare.indexes[0].corpus = join(dir, 'corpus');
  config.prepare.indexes[0].embedder.model = join(dir, 'embedder');
  for (const retriever of config.retrieval.retrievers) {
    retriever.index = join(dir, 'index');
    if (retriever.rerank) retriever.rerank.model = join(dir, 'reranker');
  }
  const file = join(dir, 'demo-rerank.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

describe('the offline reranking demo, end to end through the CLI', () => {
  let dir: string;
  let result: CliResult;
  let records: RunItemRecord[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-rerank-demo-'));
    result = await runCli(['run', demoRerankConfig(dir), '--run-id', 'r', '--no-progress']);
    records = readFileSync(join(dir, 'runs', 'r', 'items.jsonl'), 'utf8').trim().split('\n').map((line) => RunItemRecordSchema.parse(JSON.parse(line)));
  }, 180_000);

  it('exits 0 with a row per k for the plain and the reranked retriever, and names the fixture reranker', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    for (const k of [1, 3, 5]) {
      expect(result.stdout).toMatch(new RegExp(`^dense/rag@${k}\\s`, 'm'));
      expect(result.stdout).toMatch(new RegExp(`^dense-rerank/rag@${k}\\s`, 'm'));
    }
    expect(result.stdout).toMatch(/reranker for dense-rerank: cross-encoder .*reranker, top 10 first-stage candidates .*generated fixture cross-encoder/);
  });

  it('answers every k from the reranked candidates: the prompt holds the top k of the reranked list', () => {
    for (const k of [1, 3, 5]) {
      const rows = records.filter((r) => r.condition === `dense-rerank/rag@${k}`);
      expect(rows).toHaveLength(20);
      for (const r of rows) {
        expect(r.score.status).toBe('scored');
        expect(r.retrieved.map((c) => c.rank)).toEqual(Array.from({ length: k }, (_, i) => i + 1));
        expect(r.contextIds).toEqual(r.retrieved.map((c) => c.id).filter((id) => r.contextIds.includes(id)));
        expect(r.prompt.map((m) => m.content).join('\n')).toContain(r.retrieved[0]!.text.slice(0, 20));
      }
    }
  });

  it('records both rankings: reranked rank and score, and the first-stage rank and score', () => {
    const reranked = records.filter((r) => r.retriever === 'dense-rerank');
    const plain = records.filter((r) => r.retriever === 'dense');
    for (const r of reranked) for (const c of r.retrieved) expect(c.firstStage).toEqual({ rank: expect.any(Number), score: expect.any(Number) });
    for (const r of plain) for (const c of r.retrieved) expect(c.firstStage).toBeUndefined();
    // The first-stage ranking of the reranked retriever is the plain retriever's own ranking.
    const item = reranked.find((r) => r.k === 5)!;
    const same = plain.find((r) => r.k === 5 && r.itemId === item.itemId)!;
    for (const c of item.retrieved) {
      const inPlain = same.retrieved.find((p) => p.id === c.id);
      if (!inPlain) continue;
      // Same rank; the score to float precision (the plain retriever's queries go in one batched matrix product).
      expect(c.firstStage!.rank).toBe(inPlain.rank);
      expect(c.firstStage!.score).toBeCloseTo(inPlain.score, 6);
    }
    // Reranking changed some order, and the same reranked list serves every k.
    expect(reranked.some((r) => r.retrieved.some((c) => c.firstStage!.rank !== c.rank))).toBe(true);
    for (const r of reranked.filter((x) => x.k === 3)) {
      const deeper = reranked.find((x) => x.k === 5 && x.itemId === r.itemId)!;
      expect(r.retrieved.map((c) => c.id)).toEqual(deeper.retrieved.slice(0, 3).map((c) => c.id));
    }
  });

  it('reports recall@k before and after reranking, and the first-stage recall equals the plain retriever\'s', () => {
    const summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs', 'r', 'summary.json'), 'utf8')));
    for (const k of [1, 3, 5]) {
      const reranked = summary.cells.find((c) => c.condition === `dense-rerank/rag@${k}`)!;
      const plain = summary.cells.find((c) => c.condition === `dense/rag@${k}`)!;
      expect(reranked.retrieval!['firstStage.recall']).toBeCloseTo(plain.retrieval!.recall!, 10);
      expect(reranked.retrieval!.recall).toBeGreaterThanOrEqual(0);
    }
    // The generated coverage cross-encoder finds the evidence page first more often than dense retrieval (docs/reranking.md: 0.38 → 0.68).
    const at1 = summary.cells.find((c) => c.condition === 'dense-rerank/rag@1')!.retrieval!;
    expect(at1['firstStage.recall']).toBeCloseTo(0.38, 2);
    expect(at1.recall).toBeCloseTo(0.68, 2);
  });

  it('the report draws score vs k for both retrievers and the recall curves before and after reranking', () => {
    const html = readFileSync(join(dir, 'runs', 'r', 'report.html'), 'utf8');
    const depth = html.slice(html.indexOf('id="depth"'), html.indexOf('id="rerank-recall"'));
    expect(depth).toMatch(/>dense<\/text>/);
    expect(depth).toMatch(/>dense-rerank<\/text>/);
    const recall = html.slice(html.indexOf('id="rerank-recall"'), html.indexOf('id="conditions"'));
    expect(recall).toContain('dense-rerank: first stage');
    expect(recall).toContain('dense-rerank: reranked');
    expect(recall.match(/<svg/g)).toHaveLength(1);
  });
});
