import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../errors.js';
import type { CrossEncoderLoadParams, CrossEncoderSession, EncodedPair } from './crossEncoderModel.js';
import type { CrossEncoderWorkerReply, CrossEncoderWorkerRequest } from './crossEncoderWorker.js';

/**
 * Worker *processes*, each with its own cross-encoder session, for throughput on several cores:
 * onnxruntime-node 1.21 cannot run models in several threads of one process (see
 * src/embedding/transformersWorkerPool.ts, which this mirrors for batches of encoded pairs).
 * Pairs are encoded in the main process; a batch goes to whichever worker is idle.
 */
function startWorker(): ChildProcess {
  const typescript = import.meta.url.endsWith('.ts');
  const module = fileURLToPath(new URL(`./crossEncoderWorker.${typescript ? 'ts' : 'js'}`, import.meta.url));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return fork(module, [], { execArgv: typescript ? ['--import', tsx] : [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

interface Job {
  id: number;
  pairs: EncodedPair[];
  resolve(logits: number[]): void;
  reject(error: Error): void;
}

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

export class CrossEncoderWorkerPool implements CrossEncoderSession {
  private readonly queue: Job[] = [];
  private readonly busy = new Map<ChildProcess, Job>();
  private nextId = 0;

  private constructor(private readonly workers: ChildProcess[]) {
    for (const worker of workers) {
      worker.on('message', (reply: CrossEncoderWorkerReply) => this.settle(worker, reply));
      worker.on('exit', (code, signal) => this.fail(worker, `exited (${signal ?? code})`));
      hold(worker, false);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  static async start(params: CrossEncoderLoadParams, count: number): Promise<CrossEncoderWorkerPool> {
    const workers = Array.from({ length: count }, () => startWorker());
    try {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve, reject) => {
              worker.once('error', reject);
              worker.once('exit', (code) => reject(new Error(`cross-encoder worker exited (${code}) while loading the model`)));
              worker.once('message', (reply: CrossEncoderWorkerReply) => {
                if (reply.type === 'ready') resolve();
                else if (reply.type === 'failed') reject(reply.inputError ? new ConfigError(reply.message) : new Error(reply.message));
                else reject(new Error(`cross-encoder worker: unexpected first message ${reply.type}`));
              });
              worker.send({ type: 'start', params } satisfies CrossEncoderWorkerRequest);
            }),
        ),
      );
      for (const worker of workers) worker.removeAllListeners();
      return new CrossEncoderWorkerPool(workers);
    } catch (error) {
      for (const worker of workers) worker.removeAllListeners().kill();
      throw error;
    }
  }

  batchLogits(pairs: EncodedPair[]): Promise<number[]> {
    return new Promise((resolve, reject) => {
      if (this.workers.length === 0) return reject(new Error('cross-encoder worker pool is closed'));
      this.queue.push({ id: this.nextId++, pairs, resolve, reject });
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
      worker.send({ type: 'score', id: job.id, pairs: job.pairs } satisfies CrossEncoderWorkerRequest);
    }
  }

  private settle(worker: ChildProcess, reply: CrossEncoderWorkerReply): void {
    const job = this.busy.get(worker);
    if (!job || !('id' in reply) || reply.id !== job.id) return;
    this.busy.delete(worker);
    hold(worker, false);
    if (reply.type === 'result') job.resolve(reply.logits);
    else if (reply.type === 'error') job.reject(new Error(`cross-encoder worker: ${reply.message}`));
    this.dispatch();
  }

  /** A dead worker leaves the pool; its batch fails, and queued batches fail once none is left. */
  private fail(worker: ChildProcess, why: string): void {
    const index = this.workers.indexOf(worker);
    if (index < 0) return;
    this.workers.splice(index, 1);
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    const error = new Error(`cross-encoder worker ${why}`);
    job?.reject(error);
    if (this.workers.length === 0) for (const queued of this.queue.splice(0)) queued.reject(error);
  }

  async dispose(): Promise<void> {
    const workers = this.workers.splice(0);
    for (const job of this.queue.splice(0)) job.reject(new Error('cross-encoder worker pool closed'));
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.exitCode !== null) return resolve();
            worker.once('exit', () => resolve());
            hold(worker, true);
            worker.disconnect();
          }),
      ),
    );
  }
}
