import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';

/**
 * Writes a run directory as the runner leaves it (config.json, manifest.json, items.jsonl)
 * from fabricated records, so the results API is tested on real files.
 */
export function writeRunDir(
  records: RunItemRecord[],
  options: { name?: string; models?: string[]; conditions?: string[]; dir?: string } = {},
): string {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'hisrag-results-'));
  const config = {
    name: options.name ?? 'fixture',
    benchmark: { name: 'prohist', file: 'b.json' },
    retrieval: { retriever: { name: 'hnsw', index: 'i' }, k: [10, 20] },
    strategies: ['closed-book', 'rag'],
    models: [{ name: 'extractive', label: 'm' }],
    scoring: { compat: 'hisrag', textMetrics: false, bootstrapResamples: 200, baseline: 'closed-book' },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const manifest = {
    runId: 'fixture',
    models: options.models ?? [...new Set(records.map((r) => r.model))],
    conditions: options.conditions ?? [...new Set(records.map((r) => r.condition))],
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'items.jsonl'), records.map((r) => JSON.stringify(r) + '\n').join(''));
  return dir;
}
