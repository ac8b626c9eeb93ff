import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildCorpus } from '../../src/corpus/build.js';
import { corpusBuildConfigSchema, parseCorpusBuildConfig } from '../../src/corpus/config.js';
import { readChunks, readCorpusManifest } from '../../src/runFiles/corpusFiles.js';
import { corpusBuilders } from '../../src/corpus/registry.js';
import type { CorpusBuilder } from '../../src/corpus/types.js';
import { ConfigError, DataFileError, InputError, InterruptedError } from '../../src/errors.js';

// A builder that yields n numbered documents and pulls the plug after `abortAfter` of them.
let controller = new AbortController();
corpusBuilders.register({
  name: 'test-numbers',
  description: 'test only',
  params: z.strictObject({ n: z.number(), abortAfter: z.number().optional() }),
  create: (params): CorpusBuilder => ({
    describeSource: async () => ({ path: 'numbers' }),
    async *items(run) {
      for (let i = run.startAt; i < params.n; i++) {
        if (i % 5 === 4) yield { kind: 'skipped', reason: 'everyFifth' };
        else yield { kind: 'document', document: { docId: `n${i}`, title: `第${i}`, text: `第${i}句。重複句。`, meta: { i } } };
        if (params.abortAfter !== undefined && i + 1 === params.abortAfter) controller.abort();
      }
    },
  }),
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-build-'));
});
afterAll(async () => {
  // The builder leaves with this file (a fork that runs several files shares the registries).
  corpusBuilders.unregister('test-numbers');
  await rm(dir, { recursive: true, force: true });
});

const config = (out: string, builder: Record<string, unknown> = { name: 'test-numbers', n: 30 }) => ({
  name: 'nums',
  builder: builder as { name: string },
  out: join(dir, out),
  chunking: { maxSize: 6 },
});
const chunkLines = async (out: string) => (await readFile(join(dir, out, 'chunks.jsonl'), 'utf8')).trim().split('\n');

describe('buildCorpus', () => {
  it('writes chunks.jsonl and a complete manifest with counts, hash, version and timings', async () => {
    const manifest = await buildCorpus(config('plain'));
    const bytes = await readFile(join(dir, 'plain', 'chunks.jsonl'));
    expect(manifest).toMatchObject({
      name: 'nums',
      builder: 'test-numbers',
      complete: true,
      source: { path: 'numbers' },
      counts: { documentsRead: 30, documentsSkipped: { everyFifth: 6 }, documentsChunked: 24 },
      contentHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      toolVersion: 'hisrag 0.1.0',
    });
    expect(manifest.timings.seconds).toBeTypeOf('number');
    expect(await readCorpusManifest(join(dir, 'plain'))).toEqual(manifest);
    expect(await readdir(dir)).not.toContain('plain.partial');
  });

  it('drops exact-duplicate chunks and counts them', async () => {
    const manifest = await buildCorpus(config('dedupe'));
    // Every document ends with the same sentence 重複句。: kept once.
    expect(manifest.counts.duplicateChunksDropped).toBe(23);
    expect(manifest.counts.chunksWritten).toBe(25);
    const texts = (await chunkLines('dedupe')).map((l) => JSON.parse(l).text as string);
    expect(new Set(texts).size).toBe(texts.length);
    // The manifest maps each dropped id to the kept chunk with its text; the undeduplicated build shows which texts those were.
    const all = new Map((await buildCorpus({ ...config('dedupe-all'), dedupe: false }) && (await chunkLines('dedupe-all'))).map((l) => [JSON.parse(l).id as string, JSON.parse(l).text as string]));
    const kept = new Map((await chunkLines('dedupe')).map((l) => [JSON.parse(l).id as string, JSON.parse(l).text as string]));
    const map = manifest.duplicateOf!;
    expect(Object.keys(map)).toHaveLength(23);
    expect(Object.keys(map).sort()).toEqual([...all.keys()].filter((id) => !kept.has(id)).sort());
    for (const [dropped, twin] of Object.entries(map)) expect(kept.get(twin)).toBe(all.get(dropped));
  });

  it('keeps duplicates with dedupe off', async () => {
    const manifest = await buildCorpus({ ...config('nodedupe'), dedupe: false });
    expect(manifest.counts).toMatchObject({ chunksWritten: 48, duplicateChunksDropped: 0 });
  });

  it('leaves an interrupted build unreadable, then resumes it to the same chunks without duplicates', async () => {
    const whole = await buildCorpus(config('whole'));
    controller = new AbortController();
    const interrupted = buildCorpus(config('resumed', { name: 'test-numbers', n: 30, abortAfter: 13 }), { signal: controller.signal, checkpointEvery: 4 });
    await expect(interrupted).rejects.toThrow(/interrupted .* rerun with --resume/);
    await expect(readCorpusManifest(join(dir, 'resumed'))).rejects.toThrow(/incomplete .* --resume/);
    // A torn line after the last checkpoint (a kill mid-write) is cut off on resume.
    await appendFile(join(dir, 'resumed.partial', 'chunks.jsonl'), '{"id":"nums:n99:0","docId":"n9');
    await appendFile(join(dir, 'resumed.partial', 'documents.jsonl'), '{"doc":"n99","docId":"n9');
    controller = new AbortController();
    const resumed = await buildCorpus(config('resumed', { name: 'test-numbers', n: 30, abortAfter: 13 }), { resume: true });
    expect(resumed.contentHash).toBe(whole.contentHash);
    // The documents' texts too: each once, as a build in one go writes them.
    expect(resumed.documentsHash).toBe(whole.documentsHash);
    expect(resumed.counts).toEqual(whole.counts);
    expect(resumed.duplicateOf).toEqual(whole.duplicateOf);
    expect(resumed.timings.runs).toBe(2);
    expect(await chunkLines('resumed')).toEqual(await chunkLines('whole'));
  });

  it('refuses to resume a build an earlier hisrag started (its checkpoint keeps no documents.jsonl length)', async () => {
    controller = new AbortController();
    await expect(buildCorpus(config('older', { name: 'test-numbers', n: 30, abortAfter: 3 }), { signal: controller.signal })).rejects.toThrow(InterruptedError);
    const file = join(dir, 'older.partial', 'checkpoint.json');
    const { documentsBytes: _dropped, ...older } = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify(older));
    await expect(buildCorpus(config('older', { name: 'test-numbers', n: 30 }), { resume: true })).rejects.toThrow(/earlier hisrag, which kept no documents\.jsonl; run without --resume/);
  });

  it('refuses a damaged checkpoint, with --resume and without, naming file and field', async () => {
    controller = new AbortController();
    await expect(buildCorpus(config('damaged', { name: 'test-numbers', n: 30, abortAfter: 3 }), { signal: controller.signal })).rejects.toThrow(InterruptedError);
    const file = join(dir, 'damaged.partial', 'checkpoint.json');
    await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(file, 'utf8')), chunksBytes: 'many' }));
    const refusal = `${file}: chunksBytes: Invalid input: expected number, received string`;
    await expect(buildCorpus(config('damaged', { name: 'test-numbers', n: 30 }), { resume: true })).rejects.toThrow(refusal);
    await expect(buildCorpus(config('damaged', { name: 'test-numbers', n: 30 }))).rejects.toThrow(refusal);
  });

  it('refuses to resume with a different config', async () => {
    controller = new AbortController();
    await expect(buildCorpus(config('changed', { name: 'test-numbers', n: 30, abortAfter: 3 }), { signal: controller.signal })).rejects.toThrow(InterruptedError);
    await expect(buildCorpus(config('changed', { name: 'test-numbers', n: 31 }), { resume: true })).rejects.toThrow(/different config/);
  });

  it('refuses to start over an interrupted build without --resume, naming it; deleting it starts afresh', async () => {
    controller = new AbortController();
    await expect(buildCorpus(config('fresh', { name: 'test-numbers', n: 30, abortAfter: 3 }), { signal: controller.signal })).rejects.toThrow(InterruptedError);
    const again = buildCorpus(config('fresh', { name: 'test-numbers', n: 30 }));
    await expect(again).rejects.toThrow(InputError);
    await expect(again).rejects.toThrow(/fresh\.partial holds an interrupted build \(\d+ source records[^]*--resume/);
    await rm(join(dir, 'fresh.partial'), { recursive: true });
    const manifest = await buildCorpus(config('fresh', { name: 'test-numbers', n: 30 }));
    expect(manifest.timings.runs).toBe(1);
    expect(manifest.counts.documentsRead).toBe(30);
  });

  it('fails on a truncated dump with a DataFileError and no complete manifest', async () => {
    const whole = await readFile(join(import.meta.dirname, 'fixtures', 'mini-dump.xml.bz2'));
    const input = join(dir, 'cut.xml.bz2');
    await writeFile(input, whole.subarray(0, 600));
    const building = buildCorpus(config('bad', { name: 'wikipedia-dump', input, workers: 0 }));
    await expect(building).rejects.toThrow(DataFileError);
    await expect(building).rejects.toThrow(/cut\.xml\.bz2/);
    expect(existsSync(join(dir, 'bad', 'manifest.json'))).toBe(false);
    await expect(readCorpusManifest(join(dir, 'bad'))).rejects.toThrow(/incomplete/);
  });

  it('streams the chunks of a finished corpus with readChunks', async () => {
    await buildCorpus(config('read'));
    const ids: string[] = [];
    for await (const chunk of readChunks(join(dir, 'read'))) ids.push(chunk.id);
    expect(ids.slice(0, 3)).toEqual(['nums:n0:0', 'nums:n0:1', 'nums:n1:0']);
  });

  it('sizes chunks with a caller-supplied measure (e.g. the embedder\'s token counter)', async () => {
    const manifest = await buildCorpus({ ...config('measured'), chunking: { maxSize: 100 } }, { measure: (text) => text.length * 20 });
    expect(manifest.parameters.chunking).toMatchObject({ maxSize: 100, measure: 'custom' });
    const texts = (await chunkLines('measured')).map((l) => JSON.parse(l).text as string);
    expect(texts.every((t) => t.length * 20 <= 100)).toBe(true);
    expect(texts).toContain('重複句。');
  });

  it('refuses a directory that is not a corpus', async () => {
    await expect(readCorpusManifest(join(dir, 'nothing'))).rejects.toThrow(/manifest\.json: not found/);
  });
});

describe('CorpusBuildConfigSchema', () => {
  it('fills chunking and dedupe defaults', () => {
    const parsed = parseCorpusBuildConfig({ name: 'x', builder: { name: 'json', input: 'a.json' } });
    expect(parsed.chunking).toEqual({ maxSize: 512, unit: 'chars', overlap: 0, headingPrefix: false });
    expect(parsed.dedupe).toBeUndefined();
  });

  it('names an unknown builder parameter by its path', () => {
    expect(() => parseCorpusBuildConfig({ name: 'x', builder: { name: 'json', input: 'a.json', bogus: 1 } }, 'corpus')).toThrow(ConfigError);
    expect(() => parseCorpusBuildConfig({ name: 'x', builder: { name: 'json', input: 'a.json', bogus: 1 } }, 'corpus')).toThrow(/corpus\.builder.*bogus/);
  });

  it('names an unknown builder with the known ones', () => {
    expect(() => parseCorpusBuildConfig({ name: 'x', builder: { name: 'nope' } })).toThrow(/builder\.name: unknown corpus builder "nope" \(known: .*wikipedia-dump/);
  });

  it('rejects unknown top-level keys, token units without a tokenizer, and overlap ≥ maxSize', () => {
    const base = { name: 'x', builder: { name: 'json', input: 'a.json' } };
    expect(corpusBuildConfigSchema().safeParse({ ...base, extra: 1 }).success).toBe(false);
    expect(() => parseCorpusBuildConfig({ ...base, chunking: { unit: 'tokens' } })).toThrow(/chunking\.tokenizer/);
    expect(() => parseCorpusBuildConfig({ ...base, chunking: { maxSize: 10, overlap: 10 } })).toThrow(/chunking\.overlap/);
  });
});
