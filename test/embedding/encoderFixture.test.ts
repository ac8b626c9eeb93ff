import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFixtureModel } from './fixtureModelDir.js';
import { TransformersEmbedder } from '../../src/embedding/transformersEmbedder.js';

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('generated BERT encoder fixture', () => {
  let fixture: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  let fp32: TransformersEmbedder;
  let q8: TransformersEmbedder;
  const texts = ['秦始皇统一六国，建立秦朝', '汉', '贞观之治'];
  beforeAll(async () => {
    fixture = await temporaryFixtureModel({ kind: 'bert', dim: 32, layers: 2, heads: 4, intermediate: 64, vocabSize: 21128, maxTokens: 64 });
    fp32 = new TransformersEmbedder({ model: fixture.dir, batchSize: 3 });
    q8 = new TransformersEmbedder({ model: fixture.dir, dtype: 'q8', batchSize: 3 });
  });
  afterAll(async () => {
    await Promise.all([fp32.dispose(), q8.dispose()]);
    await fixture.remove();
  });

  it('writes the fp32 and the dynamically quantised int8 graph', () => {
    expect(fixture.files).toContain('onnx/model_quantized.onnx');
  });

  it('loads through transformers.js and gives unit vectors of the hidden size', async () => {
    for (const vector of await fp32.embedDocuments(texts)) {
      expect(vector).toHaveLength(32);
      expect(Math.sqrt(dot(vector, vector))).toBeCloseTo(1, 5);
    }
  });

  it('ignores padding: a text gives the same vector alone as in a batch with longer texts', async () => {
    const [inBatch] = (await fp32.embedDocuments(['汉', ...texts])) as [number[]];
    const [alone] = (await fp32.embedDocuments(['汉'])) as [number[]];
    expect(Math.max(...alone.map((x, i) => Math.abs(x - inBatch[i]!)))).toBeLessThan(1e-4);
  });

  it('gives q8 vectors close to the fp32 ones (same seeded weights, quantised)', async () => {
    const [full, quantised] = await Promise.all([fp32.embedDocuments(texts), q8.embedDocuments(texts)]);
    quantised.forEach((vector, i) => {
      const similarities = full.map((other) => dot(vector, other));
      // onnxruntime's int8 kernels differ by CPU (VNNI, AVX2): 0.9977 on this one, above 0.999 on others.
      expect(similarities[i]).toBeGreaterThan(0.995);
      // Random encoders' CLS vectors are all alike: q8 must still be nearest to its own fp32 vector.
      expect(similarities.indexOf(Math.max(...similarities))).toBe(i);
    });
  });
});
