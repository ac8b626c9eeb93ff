// Runs one model instance in a worker thread for TransformersWorkerPool; one batch at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { loadTransformersModel, type ModelLoadParams } from './transformersModel.js';
import { InputError } from '../errors.js';

export type WorkerRequest = { id: number; texts: string[] };
export type WorkerReply =
  | { type: 'ready'; dimension: number; fingerprint: string }
  | { type: 'failed'; message: string; inputError: boolean }
  | { type: 'result'; id: number; data: Float32Array }
  | { type: 'error'; id: number; message: string };

const port = parentPort!;
const post = (reply: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

try {
  const model = await loadTransformersModel(workerData as ModelLoadParams);
  port.on('message', async ({ id, texts }: WorkerRequest) => {
    try {
      const vectors = await model.embedBatch(texts);
      const data = new Float32Array(vectors.length * model.dimension);
      vectors.forEach((vector, i) => data.set(vector, i * model.dimension));
      post({ type: 'result', id, data }, [data.buffer]);
    } catch (error) {
      post({ type: 'error', id, message: (error as Error).message });
    }
  });
  post({ type: 'ready', dimension: model.dimension, fingerprint: model.fingerprint });
} catch (error) {
  post({ type: 'failed', message: (error as Error).message, inputError: error instanceof InputError });
}
