import { InputError } from '../errors.js';
import type { WorkerReply, WorkerRequest } from './workerPool.js';

/** What a worker process holds once started: what it reports to the pool, and how it runs one job. */
export interface ModelWorker<Ready, Job, Result> {
  ready: Ready;
  run(job: Job): Promise<Result>;
}

/**
 * The body of a `WorkerPool` worker process: on `start`, loads its model with the pool's params;
 * then runs one job at a time. The process exits when the parent disconnects (or goes away).
 */
export function serveModelWorker<Params, Ready, Job, Result>(start: (params: Params) => Promise<ModelWorker<Ready, Job, Result>>): void {
  const send = (reply: WorkerReply<Ready, Result>) => process.send!(reply);
  let worker: ModelWorker<Ready, Job, Result> | undefined;
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (request: WorkerRequest<Params, Job>) => {
    if (request.type === 'start') {
      try {
        worker = await start(request.params);
        send({ type: 'ready', ready: worker.ready });
      } catch (error) {
        send({ type: 'failed', message: (error as Error).message, inputError: error instanceof InputError });
      }
      return;
    }
    try {
      send({ type: 'result', id: request.id, result: await worker!.run(request.job) });
    } catch (error) {
      send({ type: 'error', id: request.id, message: (error as Error).message });
    }
  });
}
