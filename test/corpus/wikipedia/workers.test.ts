import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus, type BuildCorpusOptions } from '../../../src/corpus/build.js';
import { countCodePoints } from '../../../src/chunking/chunker.js';
import { DataFileError, InterruptedError } from '../../../src/errors.js';

// A synthetic zhwiki-style dump of ~1 MiB (a few hundred pages), cut into ~16 batches.
let dir: string;
let dump: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-workers-'));
  dump = join(dir, 'synthetic.xml');
  const script = join(import.meta.dirname, '..', '..', '..', 'scripts', 'generate-synthetic-dump.ts');
  execFileSync(process.execPath, ['--import', 'tsx', script, '--out', dump, '--mb', '1', '--seed', '3'], { stdio: 'ignore' });
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function build(name: string, params: Record<string, unknown>, options: BuildCorpusOptions = {}) {
  const out = join(dir, name);
  const config = { name: 'zh', builder: { name: 'wikipedia-dump', input: dump, batchBytes: 64 * 1024, ...params }, out, chunking: { maxSize: 200 } };
  const manifest = await buildCorpus(config, options);
  return { manifest, chunks: await readFile(join(out, 'chunks.jsonl'), 'utf8') };
}

describe('wikipedia-dump builds across worker threads', () => {
  it('writes the same chunks (text, ids, order) and counts with 0, 1 and 2 workers', async () => {
    const [none, one, two] = [await build('w0', { workers: 0 }), await build('w1', { workers: 1 }), await build('w2', { workers: 2 })];
    expect(none.manifest.counts.chunksWritten).toBeGreaterThan(500);
    expect(none.manifest.counts.documentsSkipped.redirect).toBeGreaterThan(0);
    for (const other of [one, two]) {
      expect(other.chunks).toBe(none.chunks);
      expect(other.manifest.counts).toEqual(none.manifest.counts);
      expect(other.manifest.contentHash).toBe(none.manifest.contentHash);
    }
  }, 60_000);

  it('writes the same chunks when the runner chunks page by page (a caller-supplied measure)', async () => {
    const batched = await build('batched', { workers: 2 });
    const byItem = await build('by-item', { workers: 2 }, { measure: countCodePoints });
    expect(byItem.chunks).toBe(batched.chunks);
    expect(byItem.manifest.counts).toEqual(batched.manifest.counts);
  }, 60_000);

  it('resumes an interrupted build, also with another worker count, to the same chunks', async () => {
    const whole = await build('whole', { workers: 0 });
    // Aborts after a few batches: the build checkpoints after each one (checkpointEvery 1).
    let checks = 0;
    const signal = { get aborted() { return ++checks > 12; } } as AbortSignal;
    await expect(build('resumed', { workers: 2 }, { signal, checkpointEvery: 1 })).rejects.toThrow(InterruptedError);
    const resumed = await build('resumed', { workers: 1 }, { resume: true });
    expect(resumed.manifest.timings.runs).toBe(2);
    expect(resumed.chunks).toBe(whole.chunks);
    expect(resumed.manifest.counts).toEqual(whole.manifest.counts);
  }, 60_000);

  it('fails with a DataFileError naming the file and the pages when a page in a worker\'s batch is malformed XML', async () => {
    const bad = join(dir, 'bad.xml');
    await writeFile(bad, '<mediawiki>\n<page><title>甲</title><ns>0</nsx><id>1</id></page>\n</mediawiki>\n');
    const out = join(dir, 'bad-out');
    const building = buildCorpus({ name: 'zh', builder: { name: 'wikipedia-dump', input: bad, workers: 1 }, out });
    await expect(building).rejects.toThrow(DataFileError);
    await expect(building).rejects.toThrow(/bad\.xml: malformed XML: .* \(in pages 1–1 of the dump\)/);
  });
});
