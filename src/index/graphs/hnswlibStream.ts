import { Worker } from 'node:worker_threads';
import { ownedView } from '../../corpus/wikipedia/transferable.js';
import { siblingWorkerScript } from '../../corpus/wikipedia/workerScript.js';
import type { ChunkStore } from '../chunkStore.js';
import type { StreamedGraphBuild, StreamedGraphOptions, TunableGraph } from '../graphIndex.js';
import type { HnswParams } from '../../runFiles/indexManifest.js';
import type { Scored } from '../topK.js';
import type { HnswlibWorkerData, HnswlibWorkerReply, HnswlibWorkerRequest } from './hnswlibWorker.js';

/** Rows sent to the graph thread and not inserted yet before `add` waits (4,096 of 1024-d: 16 MiB). */
const MAX_QUEUED_ROWS = 4096;

/**
 * The main-thread side of a streamed hnswlib build: the graph lives on a worker thread
 * (hnswlibWorker.ts), which inserts rows in the order they are sent while this thread embeds and
 * stores the next batches. Rows are transferred, not copied. The graph equals the one `build` makes
 * from the same stored vectors: same parameters, seed and insertion order (held-out sample last).
 */
export async function startHnswlibStream(dimension: number, params: HnswParams, path: string, options: StreamedGraphOptions): Promise<StreamedGraphBuild> {
  const script = await siblingWorkerScript(import.meta.url, 'hnswlibWorker');
  const { space, M, efConstruction, efSearch, randomSeed } = params;
  const abandoned = new Int32Array(new SharedArrayBuffer(4));
  const data: HnswlibWorkerData = { space, M, efConstruction, efSearch, randomSeed, dimension, capacity: options.capacity, heldOut: options.heldOut, abandoned };
  const worker = new Worker(script, { workerData: data });
  let failure: Error | undefined;
  // Rows sent, rows the thread has handled (inserted or skipped as held out), vectors in the graph.
  let sent = 0;
  let done = 0;
  let inGraph = 0;
  let nextId = 0;
  const replies = new Map<number, { resolve(reply: HnswlibWorkerReply): void; reject(error: Error): void }>();
  // Resolved whenever the thread has inserted more rows (or failed): what `add` and `finish` wait on.
  let progressed: (() => void) | undefined;
  const wake = () => {
    const resolve = progressed;
    progressed = undefined;
    resolve?.();
  };
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exited.then(() => markReady());
  const fail = (error: Error) => {
    failure ??= error;
    for (const pending of replies.values()) pending.reject(failure);
    replies.clear();
    wake();
  };
  worker.on('message', (reply: HnswlibWorkerReply) => {
    if (reply.type === 'ready') return markReady();
    if (reply.type === 'added') {
      done += reply.rows;
      inGraph = reply.added;
      options.onAdded?.(reply.added);
      return wake();
    }
    if (reply.type === 'error' && reply.id === undefined) return fail(new Error(`hnswlib graph thread: ${reply.message}`));
    const pending = replies.get(reply.id!);
    if (!pending) return;
    replies.delete(reply.id!);
    if (reply.type === 'error') pending.reject(new Error(`hnswlib graph thread: ${reply.message}`));
    else pending.resolve(reply);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (code !== 0) fail(new Error(`hnswlib graph thread exited with code ${code}`));
  });

  const post = (message: HnswlibWorkerRequest, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer);
  const call = (message: HnswlibWorkerRequest & { id: number }, transfer: ArrayBuffer[] = []) =>
    new Promise<HnswlibWorkerReply>((resolve, reject) => {
      if (failure) return reject(failure);
      replies.set(message.id, { resolve, reject });
      post(message, transfer);
    });
  const waitUntil = async (condition: () => boolean) => {
    while (!condition()) {
      if (failure) throw failure;
      await new Promise<void>((resolve) => (progressed = resolve));
    }
    if (failure) throw failure;
  };

  const search = async (queries: ArrayLike<number>[], k: number, efSearch: number): Promise<Scored[][]> => {
    const packed = new Float32Array(queries.length * dimension);
    queries.forEach((query, i) => packed.set(query, i * dimension));
    const reply = await call({ type: 'search', id: nextId++, queries: packed, k, efSearch }, [packed.buffer]);
    return reply.type === 'found' ? reply.results : [];
  };

  let closed = false;
  // Never `worker.terminate()`: terminated inside hnswlib's addPoint, the addon's throw aborts the whole
  // process (napi_throw FATAL ERROR). An abandoned build raises a shared flag instead: the thread stops
  // at the next row, skips what is queued and exits on `close`.
  const close = async (abandon: boolean) => {
    if (closed) return;
    closed = true;
    await ready;
    if (abandon) Atomics.store(abandoned, 0, 1);
    post({ type: 'close' });
    await exited;
  };

  return {
    async add(first, vectors) {
      if (failure) throw failure;
      const rows = vectors.length / dimension;
      const mine = ownedView(vectors);
      post({ type: 'add', first, vectors: mine }, [mine.buffer as ArrayBuffer]);
      sent += rows;
      await waitUntil(() => sent - done <= MAX_QUEUED_ROWS);
    },
    async finish(store: ChunkStore, beforeHeldOut) {
      try {
        await waitUntil(() => done >= sent);
        // The graph without the held-out sample.
        const heldOut = options.heldOut;
        const withoutHeldOut: TunableGraph = { size: inGraph, search };
        await beforeHeldOut?.(withoutHeldOut);
        if (heldOut.length > 0) {
          const vectors = new Float32Array(heldOut.length * dimension);
          store.readVectors(heldOut, dimension, vectors);
          post({ type: 'add', first: 0, vectors, labels: heldOut }, [vectors.buffer]);
          sent += heldOut.length;
          await waitUntil(() => done >= sent);
        }
        await call({ type: 'save', id: nextId++, path });
        await close(false);
      } catch (error) {
        await close(true);
        throw error;
      }
    },
    async abort() {
      await close(true);
    },
  };
}
