import { parentPort, workerData } from 'node:worker_threads';
import { createPageChunker } from './pageChunker.js';

/**
 * Worker side of ChunkWorkerPool: each message is a batch of pages, answered with its finished
 * chunks; the answer's buffers are transferred, not copied.
 */
const chunk = await createPageChunker(workerData);
parentPort!.on('message', (job: { id: number; xml: Uint8Array; pages: number }) => {
  try {
    const batch = chunk(job.xml, job.pages);
    parentPort!.postMessage({ id: job.id, batch }, [batch.lines.buffer, batch.lineEnds.buffer, batch.fingerprints.buffer] as ArrayBuffer[]);
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: (error as Error).message ?? String(error) });
  }
});
