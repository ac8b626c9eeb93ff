import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFingerprint } from '../../src/models/modelFingerprint.js';
import { FINGERPRINT_SIDECAR } from '../../src/runFiles/modelFiles.js';
import { readIndexManifest } from '../../src/runFiles/indexManifest.js';
import { fixtureModel, writeTestCorpus } from '../index/testCorpus.js';
import { hisragInProcess as hisrag } from '../helpers/cliInProcess.js';


describe('index manifest: fingerprint of the embedding model files', () => {
  let root: string;
  let corpus: string;
  let model: string;
  let indexDir: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-fingerprint-'));
    corpus = await writeTestCorpus(join(root, 'corpus'));
    model = await fixtureModel(join(root, 'model'), 7);
    indexDir = join(root, 'index');
    const built = await hisrag('index', 'build', '--corpus', corpus, '--retriever', 'hnsw', '--embedder', model, '--out', indexDir, '--M', '8');
    expect(built.code, built.stderr).toBe(0);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('records the sha256 of the model files in the manifest, cached beside the model', async () => {
    const manifest = readIndexManifest(indexDir);
    const fingerprint = manifest!.embedder!.fingerprint;
    expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await modelFingerprint(model, join(model, 'onnx', 'model.onnx'))).toBe(fingerprint);
    const cache = JSON.parse(readFileSync(join(model, FINGERPRINT_SIDECAR), 'utf8'));
    expect(cache.fingerprint).toBe(fingerprint);
  });

  it('queries normally while the model is unchanged', async () => {
    const result = await hisrag('retrieve', '--index', indexDir, '--query', '科举考试', '-k', '3', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('refuses (exit 2) a query after the model is regenerated in place with other weights, naming both fingerprints', async () => {
    const before = readIndexManifest(indexDir)!.embedder!.fingerprint!;
    expect(existsSync(join(model, FINGERPRINT_SIDECAR))).toBe(true);
    await fixtureModel(model, 8); // same path, same dimension, other weights
    const after = await modelFingerprint(model, join(model, 'onnx', 'model.onnx'));
    expect(after).not.toBe(before);

    const result = await hisrag('retrieve', '--index', indexDir, '--query', '科举考试', '-k', '3', '--json');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(before);
    expect(result.stderr).toContain(after);
    expect(result.stderr).toMatch(/model's files differ/);
  });
});
