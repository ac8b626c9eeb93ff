import { Worker } from 'node:worker_threads';
import { ChunkBatchSchema, type ChunkBatch } from '../types.js';
import { createPageChunker, type PageChunker, type PageChunkerSettings } from './pageChunker.js';
import { ownedView } from './transferable.js';
import { siblingWorkerScript } from './workerScript.js';

interface Job {
  resolve(batch: ChunkBatch): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  jobs: Map<number, Job>;
  /** Settles once the worker has loaded its code (or died trying). */
  ready: Promise<void>;
  exited: Promise<void>;
}

/**
 * Chunks batches of pages in up to `size` worker threads, started as work arrives: a worker
 * starts only when every running one already has a batch, so a small dump starts few. Each
 * batch goes to the worker with the fewest in hand. With `size` 0 the batches are chunked in the
 * calling thread, by the same code.
 */
export class ChunkWorkerPool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;
  private failure: Error | undefined;

  private constructor(
    private readonly size: number,
    private readonly settings: PageChunkerSettings,
    private readonly script: URL | undefined,
    private readonly inThread: PageChunker | undefined,
  ) {}

  static async open(size: number, settings: PageChunkerSettings): Promise<ChunkWorkerPool> {
    if (size === 0) return new ChunkWorkerPool(0, settings, undefined, await createPageChunker(settings));
    const script = await siblingWorkerScript(import.meta.url, 'chunkWorker');
    return new ChunkWorkerPool(size, settings, script, undefined);
  }

  /** Chunks a batch; `xml`'s buffer is handed over to the worker (unusable here afterwards). */
  run(xml: Uint8Array, pages: number): Promise<ChunkBatch> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.inThread) {
      try {
        return Promise.resolve(this.inThread(xml, pages));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    let entry = this.workers.find((w) => w.jobs.size === 0);
    if (!entry && this.workers.length < this.size) entry = this.start();
    entry ??= this.workers.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
    const id = this.nextId++;
    const target = entry;
    const owned = ownedView(xml);
    return new Promise<ChunkBatch>((resolve, reject) => {
      target.jobs.set(id, { resolve, reject });
      target.worker.postMessage({ id, xml: owned, pages }, [owned.buffer as ArrayBuffer]);
    });
  }

  private start(): PoolWorker {
    // V8's default heap limits: capping the young generation (8 MB) saved ~70 MB per worker but cost
    // up to a third more CPU in some runs (more scavenges); with no native addon in the workers, peak
    // RSS stays under 400 MB on this 70 MB dump anyway (docs/performance.md).
    const worker = new Worker(this.script!, { workerData: this.settings });
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    void exited.then(() => markReady());
    const entry: PoolWorker = { worker, jobs: new Map(), ready, exited };
    worker.on('message', (message: { id: number; batch?: unknown; error?: string; ready?: true }) => {
      if (message.ready) return markReady();
      const job = entry.jobs.get(message.id);
      if (!job) return;
      entry.jobs.delete(message.id);
      if (message.error !== undefined) return job.reject(new Error(message.error));
      const parsed = ChunkBatchSchema.safeParse(message.batch);
      if (parsed.success) job.resolve(parsed.data);
      else job.reject(new Error(`chunk worker answered with a malformed batch (${parsed.error.issues[0]?.message})`));
    });
    const failAll = (error: Error) => {
      this.failure ??= error;
      for (const job of entry.jobs.values()) job.reject(error);
      entry.jobs.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => {
      if (code !== 0) failAll(new Error(`chunk worker exited with code ${code}`));
    });
    this.workers.push(entry);
    return entry;
  }

  /** Set when a worker crashed (as opposed to one batch failing). */
  get failed(): Error | undefined {
    return this.failure;
  }

  /**
   * Stops the workers: each may first finish loading, then is asked to close its port (terminating a
   * worker that is loading its modules corrupts the heap on Node 20); a stuck one is terminated.
   */
  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(async ({ worker, ready, exited }) => {
        await ready;
        worker.postMessage({ close: true });
        const timer = setTimeout(() => void worker.terminate(), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
    this.workers.length = 0;
  }
}
