// The contract of the files a run is prepared from and keeps beside its records (runFiles/: a corpus
// directory, an index manifest, the batch ledger): a damaged file is refused with a DataFileError (the
// CLI's exit 2) naming the file, the line where there are lines, and the field; never read as absent.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataFileError } from '../../src/errors.js';
import { BatchLedger } from '../../src/runFiles/batchLedger.js';
import { readCheckpoint, readCorpusManifest } from '../../src/runFiles/corpusFiles.js';
import { readIndexManifest } from '../../src/runFiles/indexManifest.js';

/** The error `read` fails with (a DataFileError), for its message. */
async function refusal(read: () => Promise<unknown>): Promise<string> {
  const error = await read().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DataFileError);
  return (error as Error).message;
}

describe('damaged artefact files are refused naming file and field', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-artefacts-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a corpus manifest whose counts.chunksWritten is a string', async () => {
    const corpus = join(dir, 'corpus');
    mkdirSync(corpus);
    const manifest = {
      name: 'c', builder: 'json', complete: true, source: { path: 'x.json' }, parameters: {},
      counts: { documentsRead: 1, documentsSkipped: {}, chunksWritten: 'two', duplicateChunksDropped: 0 },
      contentHash: 'h', toolVersion: '0', timings: {},
    };
    writeFileSync(join(corpus, 'manifest.json'), JSON.stringify(manifest));
    expect(await refusal(() => readCorpusManifest(corpus))).toBe(
      `${join(corpus, 'manifest.json')}: counts.chunksWritten: Invalid input: expected number, received string`,
    );
  });

  it('a truncated corpus manifest is named, not taken for a corpus never built', async () => {
    const corpus = join(dir, 'truncated');
    mkdirSync(corpus);
    writeFileSync(join(corpus, 'manifest.json'), '{"name": "c", "buil');
    expect(await refusal(() => readCorpusManifest(corpus))).toMatch(new RegExp(`^${join(corpus, 'manifest.json')}: not valid JSON`));
  });

  it('a corpus build checkpoint whose itemsConsumed is negative', async () => {
    const file = join(dir, 'checkpoint.json');
    writeFileSync(file, JSON.stringify({
      configHash: 'h', itemsConsumed: -1, chunksBytes: 0, chunksWritten: 0, documentsRead: 0, documentsSkipped: {},
      duplicateChunksDropped: 0, builderCounts: {}, elapsedSeconds: 0, runs: 1, startedAt: 'now',
    }));
    expect(await refusal(() => readCheckpoint(file))).toBe(`${file}: itemsConsumed: Too small: expected number to be >=0`);
  });

  it('an index manifest whose hnsw.M is 1 and whose kind is unknown', async () => {
    const index = join(dir, 'index');
    mkdirSync(index);
    const manifest = {
      formatVersion: 2, kind: 'faiss', complete: true, corpus: { dir: '/c', name: 'c', contentHash: 'h' },
      hnsw: { space: 'ip', M: 1, efConstruction: 200, efSearch: 64, randomSeed: 1 },
      counts: { chunks: 1, documents: 1, vectors: 1, terms: 0 }, timings: {}, toolVersion: '0', createdAt: 'now',
    };
    writeFileSync(join(index, 'manifest.json'), JSON.stringify(manifest));
    const file = join(index, 'manifest.json');
    expect((await refusal(async () => readIndexManifest(index))).split('\n')).toEqual([
      `${file}: kind: Invalid option: expected one of "hnsw"|"exact"|"bm25"|"lancedb"`,
      `${file}: hnsw.M: Too small: expected number to be >=2`,
    ]);
  });

  it('a batch ledger line (not the last) whose finished event has answered as a number', async () => {
    const run = join(dir, 'run');
    mkdirSync(join(run, 'batches'), { recursive: true });
    const file = join(run, 'batches', 'ledger.jsonl');
    const lines = [
      { event: 'prepared', submission: 's1', queue: 'q', model: 'm', round: 1, file: 's1.jsonl', customIds: ['a'] },
      { event: 'finished', submission: 's1', status: 'completed', answered: 1, failed: [] },
      { event: 'live', queue: 'q', keys: ['b'] },
    ];
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    expect(await refusal(() => BatchLedger.open(run))).toBe(`${file}:2: answered: Invalid input: expected array, received number`);
  });
});
