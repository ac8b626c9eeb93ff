// A worker process of the embedder's worker pool: one model instance, one batch at a time.
import { serveModelWorker } from '../models/workerProcess.js';
import { loadTransformersModel, type EmbeddingWorkerReady, type ModelLoadParams } from './transformersModel.js';

serveModelWorker<ModelLoadParams, EmbeddingWorkerReady, string[], Float32Array>(async (params) => {
  const model = await loadTransformersModel(params);
  return {
    ready: { dimension: model.dimension, fingerprint: model.fingerprint },
    async run(texts) {
      const vectors = await model.embedBatch(texts);
      const data = new Float32Array(vectors.length * model.dimension);
      vectors.forEach((vector, i) => data.set(vector, i * model.dimension));
      return data;
    },
  };
});
