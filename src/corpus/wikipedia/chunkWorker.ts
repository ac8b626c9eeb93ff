import { parentPort, workerData } from 'node:worker_threads';
import { createPageChunker } from './pageChunker.js';
import { ownedView } from './transferable.js';

/**
 * Worker side of ChunkWorkerPool: each message is a batch of pages, answered with its finished
 * chunks; the answer's buffers are transferred, not copied.
 */
const chunk = await createPageChunker(workerData);
parentPort!.on('message', (job: { id: number; xml: Uint8Array; pages: number; close?: true }) => {
  // Closing the port lets the thread exit by itself once the pool is done with it.
  if (job.close) return parentPort!.close();
  try {
    const made = chunk(job.xml, job.pages);
    const batch = { ...made, lines: ownedView(made.lines), lineEnds: ownedView(made.lineEnds), fingerprints: ownedView(made.fingerprints), documents: ownedView(made.documents) };
    parentPort!.postMessage({ id: job.id, batch }, [batch.lines.buffer, batch.lineEnds.buffer, batch.fingerprints.buffer, batch.documents.buffer] as ArrayBuffer[]);
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: (error as Error).message ?? String(error) });
  }
});
parentPort!.postMessage({ ready: true });
