import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../errors.js';
import type { ModelLoadParams, TransformersModel } from './transformersModel.js';
import type { WorkerReply } from './transformersWorker.js';

/**
 * hisrag runs its TypeScript through tsx, so a worker running a .ts module needs the tsx
 * loader; it is resolved to an absolute URL so that it works from any working directory, under
 * `node bin/hisrag.mjs` and under vitest alike.
 */
function workerOptions(): { url: URL; execArgv: string[] } {
  const typescript = import.meta.url.endsWith('.ts');
  const url = new URL(`./transformersWorker.${typescript ? 'ts' : 'js'}`, import.meta.url);
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { url, execArgv: typescript ? ['--import', tsx] : [] };
}

interface Job {
  id: number;
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** N worker threads, each with its own model instance; batches go to whichever is idle. */
export class TransformersWorkerPool implements TransformersModel {
  private readonly queue: Job[] = [];
  private readonly busy = new Map<Worker, Job>();
  private nextId = 0;

  private constructor(
    private readonly workers: Worker[],
    readonly dimension: number,
    readonly fingerprint: string,
    readonly countTokens: (texts: string[]) => number[],
  ) {
    for (const worker of workers) {
      worker.on('message', (reply: WorkerReply) => this.settle(worker, reply));
      worker.on('error', (error) => this.fail(worker, error));
      worker.unref(); // an idle pool never keeps the process alive
    }
  }

  static async start(params: ModelLoadParams, count: number, countTokens: (texts: string[]) => number[]): Promise<TransformersWorkerPool> {
    const { url, execArgv } = workerOptions();
    const workers = Array.from({ length: count }, () => new Worker(url, { workerData: params, execArgv }));
    try {
      const ready = await Promise.all(
        workers.map(
          (worker) =>
            new Promise<{ dimension: number; fingerprint: string }>((resolve, reject) => {
              worker.once('error', reject);
              worker.once('message', (reply: WorkerReply) => {
                if (reply.type === 'ready') resolve(reply);
                else if (reply.type === 'failed') reject(reply.inputError ? new ConfigError(reply.message) : new Error(reply.message));
                else reject(new Error(`embedding worker: unexpected first message ${reply.type}`));
              });
            }),
        ),
      );
      return new TransformersWorkerPool(workers, ready[0]!.dimension, ready[0]!.fingerprint, countTokens);
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
  }

  embedBatch(texts: string[]): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, texts, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const worker of this.workers) {
      if (this.queue.length === 0) return;
      if (this.busy.has(worker)) continue;
      const job = this.queue.shift()!;
      this.busy.set(worker, job);
      worker.ref();
      worker.postMessage({ id: job.id, texts: job.texts });
    }
  }

  private settle(worker: Worker, reply: WorkerReply): void {
    const job = this.busy.get(worker);
    if (!job || !('id' in reply) || reply.id !== job.id) return;
    this.busy.delete(worker);
    worker.unref();
    if (reply.type === 'result') {
      const width = this.dimension;
      job.resolve(Array.from({ length: job.texts.length }, (_, i) => reply.data.subarray(i * width, (i + 1) * width)));
    } else if (reply.type === 'error') {
      job.reject(new Error(`embedding worker: ${reply.message}`));
    }
    this.dispatch();
  }

  /** A crashed worker leaves the pool; its batch fails, and queued batches fail once none is left. */
  private fail(worker: Worker, error: Error): void {
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    this.workers.splice(this.workers.indexOf(worker), 1);
    const crash = new Error(`embedding worker crashed: ${error.message}`);
    job?.reject(crash);
    if (this.workers.length === 0) for (const queued of this.queue.splice(0)) queued.reject(crash);
  }

  async dispose(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error('embedding worker pool closed'));
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
