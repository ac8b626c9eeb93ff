import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { prepareArtefacts } from '../../src/app/prepare.js';
import { loadExperimentConfig } from '../../src/config/load.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { readRunManifest } from '../../src/runFiles/manifest.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import type { RunSummary } from '../../src/runFiles/summary.js';
import { multiIndexDemoConfigIn } from '../helpers/demoConfig.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { expectScoredFromRecord } from '../helpers/recordSpans.js';

// issue 43: one config line with a list of chunk sizes gives the chunking × depth grid, each corpus
// and index built once, rebuilt when its settings change, and span metrics that recompute from the records.
describe('experiments/demo-chunking.yaml: a chunking sweep in one line', () => {
  let dir: string;
  let config: any;
  let result: CliResult;
  let records: RunItemRecord[];
  let summary: RunSummary;
  const SIZES = [24, 48, 96];
  const writeConfig = (name: string, edit: (c: any) => void = () => {}) => {
    const copy = structuredClone(config);
    edit(copy);
    const file = join(dir, name);
    writeFileSync(file, stringify(copy));
    return file;
  };
  /** Runs `prepare` of a config as a run would, and gives its log. */
  const prepare = async (file: string, dryRun = false) => {
    const lines: string[] = [];
    await prepareArtefacts(await loadExperimentConfig(file), { log: (line) => lines.push(line), progress: false, dryRun });
    return lines;
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-demo-chunking-'));
    config = multiIndexDemoConfigIn(dir, 'demo-chunking.yaml').config;
    result = await runCli(['run', writeConfig('chunking.yaml'), '--run-id', 'sweep', '--no-progress']);
    records = readFileSync(join(dir, 'runs', 'sweep', 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
    summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(dir, 'runs', 'sweep', 'summary.json'), 'utf8')));
  }, 240_000);

  it('expands maxSize: [24, 48, 96] into a corpus, two indexes and two retrievers per size, and runs every size × depth', async () => {
    expect(result.code, result.stderr).toBe(0);
    const retrievers = ['dense', 'bm25'].flatMap((r) => SIZES.map((size) => `${r}·maxSize=${size}`));
    const conditions = ['closed-book', ...retrievers.flatMap((r) => [1, 3, 10].map((k) => `${r}/rag@${k}`))];
    expect(summary.conditions).toEqual(conditions);
    expect(result.stdout).toContain(`20 questions × ${conditions.length} conditions × 1 models`);
    // Each corpus and each index is built exactly once.
    for (const size of SIZES) {
      expect(result.stdout.match(new RegExp(`^building corpus demo-longhisdoc-chunks·maxSize=${size} `, 'gm'))).toHaveLength(1);
      expect(result.stdout.match(new RegExp(`^building (exact|bm25) index .*·maxSize=${size} from `, 'gm'))).toHaveLength(2);
    }
    expect(result.stdout.match(/^building corpus /gm)).toHaveLength(3);
    // The run's manifest names each retriever's corpus and chunking: conditions group by corpus.
    const manifest = await readRunManifest(join(dir, 'runs', 'sweep'));
    for (const label of retrievers) {
      const size = Number(label.split('=')[1]);
      expect(manifest.chunkings![label]).toMatchObject({ corpus: `demo-longhisdoc-chunks·maxSize=${size}`, chunking: { maxSize: size, overlap: 0, unit: 'chars' } });
    }
    // The sweep's dense indexes share one embedding cache keyed by text: the query vectors, embedded for the first index, are reused by the others.
    expect(result.stderr).toMatch(/embedding cache .*demo-longhisdoc-chunks-dense\.embeddings\.sqlite: 20 hits, 0 embedded/);
    // … and a chunk text two chunkings share (a short page is one chunk at every size) is embedded once: a later index build finds some of its chunks there.
    const uses = [...result.stderr.matchAll(/embedding cache .*?: (\d+) hits, (\d+) embedded/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(uses[0]![0]).toBe(0);
    expect(uses.some(([hits, embedded]) => hits! > 0 && embedded! > 0)).toBe(true);
  });

  it('rebuilds nothing when nothing changed, only the new corpus and its indexes when a size changes, and every corpus when a shared setting does', async () => {
    const before = SIZES.map((size) => statSync(join(dir, `corpus·maxSize=${size}`, 'manifest.json')).mtimeMs);
    expect(await prepare(writeConfig('same.yaml'), true)).toEqual(['every prepared artefact is up to date; nothing would be built']);
    expect(await prepare(writeConfig('same.yaml'))).toEqual([]);
    const resized = writeConfig('resized.yaml', (c) => (c.prepare.corpora[0].chunking.maxSize = [24, 64, 96]));
    const planned = await prepare(resized, true);
    expect(planned.filter((line) => line.startsWith('would build'))).toHaveLength(3);
    expect(planned.every((line) => line.includes('maxSize=64'))).toBe(true);
    const built = await prepare(resized);
    expect(built.filter((line) => line.startsWith('building'))).toEqual([
      `building corpus demo-longhisdoc-chunks·maxSize=64 → ${join(dir, 'corpus·maxSize=64')}`,
      `building exact index ${join(dir, 'demo-longhisdoc-chunks-dense·maxSize=64')} from ${join(dir, 'corpus·maxSize=64')}`,
      `building bm25 index ${join(dir, 'demo-longhisdoc-chunks-bm25·maxSize=64')} from ${join(dir, 'corpus·maxSize=64')}`,
    ]);
    expect(SIZES.map((size) => statSync(join(dir, `corpus·maxSize=${size}`, 'manifest.json')).mtimeMs)).toEqual(before);
    // A setting every point shares (overlap) changes every corpus's fingerprint: each would be rebuilt, saying why.
    const overlapped = await prepare(writeConfig('overlap.yaml', (c) => (c.prepare.corpora[0].chunking.overlap = 4)), true);
    const rebuilt = overlapped.filter((line) => line.startsWith('would rebuild') && line.includes('corpus·maxSize='));
    expect(rebuilt).toHaveLength(3);
    for (const line of rebuilt) expect(line).toMatch(/chunking\.overlap/);
  });

  it('stores what the span metrics are computed from, and they follow from items.jsonl', () => {
    const withGold = records.filter((r) => r.goldSpans?.length);
    expect(withGold.length).toBeGreaterThan(100);
    for (const record of records) {
      expectScoredFromRecord(record);
      // Page-level recall as before, beside the span metrics.
      if (record.goldSpans?.length) expect(typeof record.retrievalMetrics!.recall).toBe('number');
    }
    // The gold is text: the same spans whatever the chunking.
    const goldOf = new Map<string, string>();
    for (const record of withGold) {
      const gold = JSON.stringify(record.goldSpans);
      expect(goldOf.get(record.itemId) ?? gold, record.key).toBe(gold);
      goldOf.set(record.itemId, gold);
    }
    // The summary's means are the records' means, with an interval around them.
    for (const cell of summary.cells.filter((c) => c.spanRetrieval)) {
      const cellRecords = records.filter((r) => r.condition === cell.condition && r.retrievalMetrics?.charRecall !== undefined);
      const recall = cell.spanRetrieval!.charRecall!;
      expect(recall.n).toBe(cellRecords.length);
      expect(recall.mean).toBeCloseTo(cellRecords.reduce((sum, r) => sum + r.retrievalMetrics!.charRecall!, 0) / cellRecords.length, 12);
      expect(recall.ciLow!).toBeLessThanOrEqual(recall.mean!);
      expect(recall.ciHigh!).toBeGreaterThanOrEqual(recall.mean!);
    }
    expect(result.stdout).toMatch(/^condition\s+char recall\s+char precision\s+char IoU\s+gold covered\s+covering k\s+covering chars$/m);
    expect(result.stdout).toMatch(/^bm25·maxSize=96\/rag@10\s+[\d.]+ \[[\d.]+, [\d.]+\]/m);
    expect(readFileSync(join(dir, 'runs', 'sweep', 'report.html'), 'utf8')).toContain('Span retrieval (chunking-independent)');
    const [header, ...rows] = readFileSync(join(dir, 'runs', 'sweep', 'summary.csv'), 'utf8').trim().split('\n').map((line) => line.split(','));
    const at = header!.indexOf('char_recall');
    expect(header!.slice(at, at + 3)).toEqual(['char_recall', 'char_recall_ci_low', 'char_recall_ci_high']);
    const csvCell = rows.find((row) => row[1] === 'bm25·maxSize=96/rag@10' && row[5] === 'all')!;
    expect(Number(csvCell[at])).toBeCloseTo(summary.cells.find((c) => c.condition === 'bm25·maxSize=96/rag@10')!.spanRetrieval!.charRecall!.mean!, 12);
  });
});
