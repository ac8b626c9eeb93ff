// A worker process of CrossEncoderWorkerPool: one cross-encoder session, one batch at a time.
import { loadCrossEncoderSession, type CrossEncoderLoadParams, type CrossEncoderSession, type EncodedPair } from './crossEncoderModel.js';
import { InputError } from '../errors.js';

export type CrossEncoderWorkerRequest = { type: 'start'; params: CrossEncoderLoadParams } | { type: 'score'; id: number; pairs: EncodedPair[] };
export type CrossEncoderWorkerReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string; inputError: boolean }
  | { type: 'result'; id: number; logits: number[] }
  | { type: 'error'; id: number; message: string };

const send = (reply: CrossEncoderWorkerReply) => process.send!(reply);
let session: CrossEncoderSession | undefined;

process.on('disconnect', () => process.exit(0)); // the parent went away
process.on('message', async (request: CrossEncoderWorkerRequest) => {
  if (request.type === 'start') {
    try {
      session = await loadCrossEncoderSession(request.params);
      send({ type: 'ready' });
    } catch (error) {
      send({ type: 'failed', message: (error as Error).message, inputError: error instanceof InputError });
    }
    return;
  }
  try {
    send({ type: 'result', id: request.id, logits: await session!.batchLogits(request.pairs) });
  } catch (error) {
    send({ type: 'error', id: request.id, message: (error as Error).message });
  }
});
