// The contract's caches (runFiles/modelFiles.ts, runFiles/responseCacheEntry.ts): unlike a run's files,
// a damaged cache entry is never refused, since what it saves can be computed again: it is recomputed
// and overwritten. What a generated model was built from (.hisrag-inputs.json) is no cache: refused;
// its fixture record only labels printed lines: read as none when unreadable.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataFileError } from '../../src/errors.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { modelFingerprint } from '../../src/models/modelFingerprint.js';
import { FINGERPRINT_SIDECAR, readFixtureRecord, readModelInputs } from '../../src/runFiles/modelFiles.js';
import { historyQuestion, serverPerTest } from '../helpers/serverPerTest.js';

const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.onnx'];

describe("a model directory's sidecars", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-model-sidecars-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A model folder of small stand-in files (the fingerprint hashes bytes; nothing loads them); `from` copies another's. */
  function modelDir(name: string, from?: string): string {
    const dir = join(root, name);
    mkdirSync(dir);
    for (const file of MODEL_FILES) {
      if (from) copyFileSync(join(from, file), join(dir, file));
      else writeFileSync(join(dir, file), `${file}: 王安石变法`);
    }
    return dir;
  }
  /** The sidecar's `files` as they are on disk now: a sidecar with these is taken at its word. */
  async function currentStats(dir: string): Promise<Record<string, { size: number; mtimeMs: number }>> {
    const files: Record<string, { size: number; mtimeMs: number }> = {};
    for (const file of MODEL_FILES) {
      const s = await stat(join(dir, file));
      files[file] = { size: s.size, mtimeMs: s.mtimeMs };
    }
    return files;
  }

  it('a well-formed sidecar matching the files is trusted (the hash is not recomputed)', async () => {
    const dir = modelDir('trusted');
    writeFileSync(join(dir, FINGERPRINT_SIDECAR), JSON.stringify({ fingerprint: 'sha256:recorded', files: await currentStats(dir) }));
    expect(await modelFingerprint(dir, join(dir, 'model.onnx'))).toBe('sha256:recorded');
  });

  it('a damaged sidecar (a wrong-typed field, or truncated) is recomputed, not refused, and rewritten', async () => {
    const reference = modelDir('reference');
    const expected = await modelFingerprint(reference, join(reference, 'model.onnx'));
    expect(expected).toMatch(/^sha256:[0-9a-f]{64}$/);

    // Same bytes in another folder: the same fingerprint, whatever its sidecar says.
    const wrongType = modelDir('wrong-type', reference);
    writeFileSync(join(wrongType, FINGERPRINT_SIDECAR), JSON.stringify({ fingerprint: 42, files: await currentStats(wrongType) }));
    expect(await modelFingerprint(wrongType, join(wrongType, 'model.onnx'))).toBe(expected);
    expect(JSON.parse(readFileSync(join(wrongType, FINGERPRINT_SIDECAR), 'utf8'))).toMatchObject({ fingerprint: expected });

    const truncated = modelDir('truncated', reference);
    writeFileSync(join(truncated, FINGERPRINT_SIDECAR), '{"fingerprint": "sha256:recor');
    expect(await modelFingerprint(truncated, join(truncated, 'model.onnx'))).toBe(expected);
  });

  it("a generated model's .hisrag-inputs.json whose settings is a list is refused naming file and field", () => {
    const dir = modelDir('generated');
    const file = join(dir, '.hisrag-inputs.json');
    writeFileSync(file, JSON.stringify({ files: {}, settings: ['seed', 7] }));
    expect(() => readModelInputs(dir)).toThrow(DataFileError);
    expect(() => readModelInputs(dir)).toThrow(`${file}: settings: Invalid input: expected record, received array`);
    rmSync(file);
    expect(readModelInputs(dir)).toBeUndefined();
  });

  it("a generated model's fixture record is read from its config.json; any other config.json reads as no fixture", () => {
    const dir = modelDir('fixture');
    const config = (value: unknown) => writeFileSync(join(dir, 'config.json'), JSON.stringify(value));
    config({ model_type: 'bert', hisrag_fixture: { kind: 'clip', seed: 3, note: 'stand-in' } });
    expect(readFixtureRecord(dir)).toEqual({ kind: 'clip', seed: 3, note: 'stand-in' });
    config({ model_type: 'bert' });
    expect(readFixtureRecord(dir)).toBeUndefined();
    config({ hisrag_fixture: { kind: 7, seed: 3 } });
    expect(readFixtureRecord(dir)).toBeUndefined();
    writeFileSync(join(dir, 'config.json'), '{"hisrag_fixture": {"kind"');
    expect(readFixtureRecord(dir)).toBeUndefined();
    expect(readFixtureRecord('BAAI/bge-large-zh-v1.5')).toBeUndefined();
  });
});

describe('a damaged response-cache entry', () => {
  const server = serverPerTest();

  it('is a miss: the answer is asked again (not an error) and overwrites the entry', async () => {
    let n = 0;
    const s = await server({ respond: () => `回答${++n}` });
    const file = join(mkdtempSync(join(tmpdir(), 'hisrag-cache-entry-')), 'responses.sqlite');
    const generate = () => new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL: s.url, model: 'test-model', cache: file })).generate(historyQuestion);
    expect(await generate()).toMatchObject({ text: '回答1' });
    expect(await generate()).toMatchObject({ text: '回答1', cached: true });
    closeResponseCaches();

    // The stored result's text is a number: this entry says nothing usable.
    const db = new Database(file);
    expect(db.prepare('UPDATE llm_responses SET value = ?').run(JSON.stringify({ model: 'test-model', result: { text: 1, raw: '回答1' } })).changes).toBe(1);
    db.close();
    const recomputed = await generate();
    expect(recomputed.text).toBe('回答2');
    expect(recomputed.cached).toBeUndefined();
    expect(await generate()).toMatchObject({ text: '回答2', cached: true });
    expect(s.chatRequests()).toHaveLength(2);
  });
});
