// A worker process of the cross-encoder's worker pool: one session, one batch of encoded pairs at a time.
import { serveModelWorker } from '../models/workerProcess.js';
import { loadCrossEncoderSession, type CrossEncoderLoadParams, type EncodedPair } from './crossEncoderModel.js';

serveModelWorker<CrossEncoderLoadParams, null, EncodedPair[], number[]>(async (params) => {
  const session = await loadCrossEncoderSession(params);
  return { ready: null, run: (pairs) => session.batchLogits(pairs) };
});
