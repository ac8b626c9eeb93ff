import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../errors.js';
import type { ModelLoadParams, TransformersModel } from './transformersModel.js';
import type { WorkerReply, WorkerRequest } from './transformersWorker.js';

/**
 * Worker *processes*, not worker threads: onnxruntime-node 1.21 (the version transformers.js
 * 3.8 pins) keeps a process-global reference to its Tensor constructor, so two threads running
 * models abort the process ("HandleScope … without proper locking", checked here; see
 * microsoft/onnxruntime#24486). hisrag runs TypeScript through tsx, so a .ts worker is started
 * with the tsx loader, resolved from the package (any working directory; CLI and vitest alike).
 */
function startWorker(): ChildProcess {
  const typescript = import.meta.url.endsWith('.ts');
  const module = fileURLToPath(new URL(`./transformersWorker.${typescript ? 'ts' : 'js'}`, import.meta.url));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return fork(module, [], {
    execArgv: typescript ? ['--import', tsx] : [],
    serialization: 'advanced', // Float32Array crosses as binary, not JSON
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

interface Job {
  id: number;
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

const send = (worker: ChildProcess, request: WorkerRequest) => worker.send(request);
/** An idle worker must not keep the parent process alive. */
function hold(worker: ChildProcess, busy: boolean): void {
  const channel = worker.channel as { ref(): void; unref(): void } | undefined;
  if (busy) {
    worker.ref();
    channel?.ref();
  } else {
    worker.unref();
    channel?.unref();
  }
}

/** N worker processes, each with its own model instance; batches go to whichever is idle. */
export class TransformersWorkerPool implements TransformersModel {
  private readonly queue: Job[] = [];
  private readonly busy = new Map<ChildProcess, Job>();
  private nextId = 0;

  private constructor(
    private readonly workers: ChildProcess[],
    readonly dimension: number,
    readonly fingerprint: string,
    readonly countTokens: (texts: string[]) => number[],
  ) {
    for (const worker of workers) {
      worker.on('message', (reply: WorkerReply) => this.settle(worker, reply));
      worker.on('exit', (code, signal) => this.fail(worker, `exited (${signal ?? code})`));
      hold(worker, false);
    }
  }

  static async start(params: ModelLoadParams, count: number, countTokens: (texts: string[]) => number[]): Promise<TransformersWorkerPool> {
    const workers = Array.from({ length: count }, () => startWorker());
    try {
      const ready = await Promise.all(
        workers.map(
          (worker) =>
            new Promise<{ dimension: number; fingerprint: string }>((resolve, reject) => {
              worker.once('error', reject);
              worker.once('exit', (code) => reject(new Error(`embedding worker exited (${code}) while loading the model`)));
              worker.once('message', (reply: WorkerReply) => {
                if (reply.type === 'ready') resolve(reply);
                else if (reply.type === 'failed') reject(reply.inputError ? new ConfigError(reply.message) : new Error(reply.message));
                else reject(new Error(`embedding worker: unexpected first message ${reply.type}`));
              });
              send(worker, { type: 'start', params });
            }),
        ),
      );
      for (const worker of workers) worker.removeAllListeners();
      return new TransformersWorkerPool(workers, ready[0]!.dimension, ready[0]!.fingerprint, countTokens);
    } catch (error) {
      for (const worker of workers) worker.removeAllListeners().kill();
      throw error;
    }
  }

  embedBatch(texts: string[]): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      if (this.workers.length === 0) return reject(new Error('embedding worker pool is closed'));
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
      hold(worker, true);
      send(worker, { type: 'embed', id: job.id, texts: job.texts });
    }
  }

  private settle(worker: ChildProcess, reply: WorkerReply): void {
    const job = this.busy.get(worker);
    if (!job || !('id' in reply) || reply.id !== job.id) return;
    this.busy.delete(worker);
    hold(worker, false);
    if (reply.type === 'result') {
      const width = this.dimension;
      job.resolve(Array.from({ length: job.texts.length }, (_, i) => reply.data.subarray(i * width, (i + 1) * width)));
    } else if (reply.type === 'error') {
      job.reject(new Error(`embedding worker: ${reply.message}`));
    }
    this.dispatch();
  }

  /** A dead worker leaves the pool; its batch fails, and queued batches fail once none is left. */
  private fail(worker: ChildProcess, why: string): void {
    const index = this.workers.indexOf(worker);
    if (index < 0) return;
    this.workers.splice(index, 1);
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    const error = new Error(`embedding worker ${why}`);
    job?.reject(error);
    if (this.workers.length === 0) for (const queued of this.queue.splice(0)) queued.reject(error);
  }

  async dispose(): Promise<void> {
    const workers = this.workers.splice(0);
    for (const job of this.queue.splice(0)) job.reject(new Error('embedding worker pool closed'));
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.exitCode !== null) return resolve();
            worker.once('exit', () => resolve());
            hold(worker, true); // wait for the exit even when nothing else keeps the process alive
            worker.disconnect(); // the worker exits on disconnect
          }),
      ),
    );
  }
}
