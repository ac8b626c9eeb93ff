import { parentPort, workerData } from 'node:worker_threads';
import { createHnswGraph, saveHnswGraph, searchGraph } from '../hnswGraph.js';

/** What the graph thread is started with (see hnswlibStream.ts). */
export interface HnswlibWorkerData {
  space: 'ip' | 'cosine';
  dimension: number;
  M: number;
  efConstruction: number;
  efSearch: number;
  randomSeed: number;
  capacity: number;
  /** Labels an `add` of consecutive labels skips (the held-out sample, added by `force` later). */
  heldOut: number[];
  /** Set to 1 by an abandoned build: the thread stops adding at the next row and waits for `close`. */
  abandoned: Int32Array;
}

export type HnswlibWorkerRequest =
  /** Rows of `vectors` are labels `first`, `first + 1`, … (held-out ones skipped), or `labels` when given (never skipped). */
  | { type: 'add'; first: number; vectors: Float32Array; labels?: number[] }
  | { type: 'search'; id: number; queries: Float32Array; k: number; efSearch: number }
  | { type: 'save'; id: number; path: string }
  | { type: 'close' };

export type HnswlibWorkerReply =
  | { type: 'ready' }
  | { type: 'added'; rows: number; added: number }
  | { type: 'found'; id: number; results: { label: number; score: number }[][] }
  | { type: 'saved'; id: number }
  | { type: 'error'; id?: number; message: string };

/**
 * The graph thread of a streamed hnswlib build. `addPoint` takes a JS array, so each row is copied into
 * one reused array (Array.from costs ~15× more); messages are handled in order.
 */
const data = workerData as HnswlibWorkerData;
const graph = createHnswGraph(data.dimension, data, data.capacity);
const skip = new Set(data.heldOut);
const row: number[] = new Array<number>(data.dimension).fill(0);
let added = 0;

function copyRow(vectors: Float32Array, i: number): number[] {
  const offset = i * data.dimension;
  for (let d = 0; d < data.dimension; d++) row[d] = vectors[offset + d]!;
  return row;
}

function add(label: number, vectors: Float32Array, i: number): void {
  // More rows than planned (a corpus manifest that undercounts): grow rather than fail.
  if (label >= graph.getMaxElements()) graph.resizeIndex(Math.max(label + 1, graph.getMaxElements() * 2));
  graph.addPoint(copyRow(vectors, i), label);
  added++;
}

const port = parentPort!;
port.on('message', (message: HnswlibWorkerRequest) => {
  if (message.type === 'close') return port.close();
  void (async () => {
    try {
      if (message.type === 'add') {
        const rows = message.vectors.length / data.dimension;
        for (let i = 0; i < rows; i++) {
          const label = message.labels ? message.labels[i]! : message.first + i;
          if (Atomics.load(data.abandoned, 0) === 1) break;
          if (!message.labels && skip.has(label)) continue;
          add(label, message.vectors, i);
        }
        port.postMessage({ type: 'added', rows, added } satisfies HnswlibWorkerReply);
      } else if (message.type === 'search') {
        const count = message.queries.length / data.dimension;
        const results = Array.from({ length: count }, (_, q) => searchGraph(graph, copyRow(message.queries, q), message.k, message.efSearch));
        port.postMessage({ type: 'found', id: message.id, results } satisfies HnswlibWorkerReply);
      } else if (message.type === 'save') {
        await saveHnswGraph(graph, message.path);
        port.postMessage({ type: 'saved', id: message.id } satisfies HnswlibWorkerReply);
      }
    } catch (error) {
      port.postMessage({ type: 'error', ...('id' in message ? { id: message.id } : {}), message: (error as Error).message ?? String(error) } satisfies HnswlibWorkerReply);
    }
  })();
});
port.postMessage({ type: 'ready' } satisfies HnswlibWorkerReply);
