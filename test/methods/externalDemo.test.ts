import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { type RunSummary } from '../../src/runFiles/summary.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/runCli.js';
import { demoExternalIn, freePort } from './externalFixtures.js';

const EXTERNAL = ['rag-service', 'lcel-chain', 'saved'];

describe('experiments/demo-external.yaml: three external systems beside closed-book and standard@3', () => {
  let result: CliResult;
  let summary: RunSummary;
  let records: RunItemRecord[];
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-external-'));
    result = await runCli(['run', demoExternalIn(dir, await freePort()), '--run-id', 'ext', '--no-progress']);
    summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs', 'ext', 'summary.json'), 'utf8')));
    records = await readRunRecords(join(dir, 'runs', 'ext'));
  }, 120_000);

  it('runs offline and prints every condition with its mean, CI, Δ against closed-book and recall', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    expect(summary.conditions).toEqual(['closed-book', 'standard@3', ...EXTERNAL]);
    for (const condition of ['standard@3', ...EXTERNAL]) {
      // mean [CI], design effects (the questions are clustered by volume), Δ [CI], p (Holm, BH), recall.
      const row = new RegExp(`^${condition}\\s+[\\d.]+\\s+\\[[\\d.]+, [\\d.]+\\]\\s+[\\d.]+ / (?:[\\d.]+|–)\\s+[-+][\\d.]+ \\[-?[\\d.]+, -?[\\d.]+\\]\\s+[\\d.]+ \\([\\d.]+, [\\d.]+\\)\\s+0\\.\\d{3}\\s`, 'm');
      expect(result.stdout, condition).toMatch(row);
    }
    expect(result.stdout).toMatch(/^closed-book\s+[\d.]+\s+\[[\d.]+, [\d.]+\]\s+[\d.]+ \/ –\s+–\s+–\s+–\s/m);
  });

  it('is diagnosed like hisrag’s own conditions: help/hurt by gold evidence among the contexts, claim metrics on them', () => {
    for (const condition of ['standard@3', ...EXTERNAL]) {
      const d = summary.cells.find((c) => c.condition === condition)!.diagnostics!;
      expect(d.decomposition!.byEvidence, condition).not.toBeNull();
      expect(d.claims.contextPrecision, condition).toBeDefined();
    }
    const why = result.stdout.slice(result.stdout.indexOf('why (model:'));
    for (const condition of EXTERNAL) expect(why).toMatch(new RegExp(`^${condition}\\s+\\d+ \\([-+][\\d.]+\\)`, 'm'));
  });

  it('every external system answered every question; its contexts are the records’ passages, matched to gold pages', () => {
    for (const condition of EXTERNAL) {
      const cell = summary.cells.find((c) => c.condition === condition)!;
      expect(cell, condition).toMatchObject({ items: 20, scored: 20, k: null, retriever: null });
      expect(cell.retrieval!.recall, condition).toBeGreaterThan(0);
      const answerable = records.filter((r) => r.condition === condition && r.groups.category !== 'Unanswerable');
      expect(answerable.every((r) => r.retrievalMetrics && r.retrieved.length > 0 && r.retrieved.every((c) => c.page !== undefined)), condition).toBe(true);
    }
  });

  it('the service’s contexts carry its chunk ids; the chain’s come from its retriever’s callbacks; the saved file’s from its mapped fields', () => {
    const service = records.find((r) => r.condition === 'rag-service' && r.itemId === '90001_1')!;
    expect(service.retrieved[0]!.id).toMatch(/^demo-longhisdoc-pages:90001-p\d+:0$/);
    expect(service.trace[0]).toMatchObject({ kind: 'http', label: 'ask' });
    const chain = records.find((r) => r.condition === 'lcel-chain' && r.itemId === '90001_1')!;
    expect(chain.retrieved).toHaveLength(3);
    expect(chain.retrieved[0]!.id).toMatch(/^demo-longhisdoc-pages:90001-p\d+:0$/);
    expect(chain.trace[0]).toMatchObject({ kind: 'runnable', label: 'invoke' });
    const saved = records.find((r) => r.condition === 'saved' && r.itemId === '90001_1')!;
    expect(saved.retrieved.length).toBeGreaterThan(0);
    expect(saved.retrieved.every((c) => typeof c.page === 'number')).toBe(true);
  });
});
