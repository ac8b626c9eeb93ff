// A worker process of TransformersWorkerPool: one model instance, one batch at a time.
import { loadTransformersModel, type ModelLoadParams } from './transformersModel.js';
import { InputError } from '../errors.js';

export type WorkerRequest = { type: 'start'; params: ModelLoadParams } | { type: 'embed'; id: number; texts: string[] };
export type WorkerReply =
  | { type: 'ready'; dimension: number; fingerprint: string }
  | { type: 'failed'; message: string; inputError: boolean }
  | { type: 'result'; id: number; data: Float32Array }
  | { type: 'error'; id: number; message: string };

const send = (reply: WorkerReply) => process.send!(reply);
let model: Awaited<ReturnType<typeof loadTransformersModel>> | undefined;

process.on('disconnect', () => process.exit(0)); // the parent went away
process.on('message', async (request: WorkerRequest) => {
  if (request.type === 'start') {
    try {
      model = await loadTransformersModel(request.params);
      send({ type: 'ready', dimension: model.dimension, fingerprint: model.fingerprint });
    } catch (error) {
      send({ type: 'failed', message: (error as Error).message, inputError: error instanceof InputError });
    }
    return;
  }
  try {
    const vectors = await model!.embedBatch(request.texts);
    const data = new Float32Array(vectors.length * model!.dimension);
    vectors.forEach((vector, i) => data.set(vector, i * model!.dimension));
    send({ type: 'result', id: request.id, data });
  } catch (error) {
    send({ type: 'error', id: request.id, message: (error as Error).message });
  }
});
