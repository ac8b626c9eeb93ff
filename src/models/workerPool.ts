import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../errors.js';

/** Messages between a pool and its worker processes (`serveModelWorker` is the other side). */
export type WorkerRequest<Params, Job> = { type: 'start'; params: Params } | { type: 'run'; id: number; job: Job };
export type WorkerReply<Ready, Result> =
  | { type: 'ready'; ready: Ready }
  | { type: 'failed'; message: string; inputError: boolean }
  | { type: 'result'; id: number; result: Result }
  | { type: 'error'; id: number; message: string };

/**
 * The worker module beside `importMetaUrl` named `name`: `.ts` when hisrag runs from source
 * (through tsx), `.js` when compiled.
 */
export function siblingWorker(importMetaUrl: string, name: string): string {
  return fileURLToPath(new URL(`./${name}.${importMetaUrl.endsWith('.ts') ? 'ts' : 'js'}`, importMetaUrl));
}

/**
 * Worker *processes*, not threads: onnxruntime-node 1.21 keeps a process-global Tensor constructor, so
 * two threads running models abort the process (microsoft/onnxruntime#24486). A .ts worker is started
 * with the tsx loader, resolved from the package.
 */
function startWorker(module: string): ChildProcess {
  const typescript = module.endsWith('.ts');
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return fork(module, [], {
    execArgv: typescript ? ['--import', tsx] : [],
    serialization: 'advanced', // typed arrays cross as binary, not JSON
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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

interface Pending<Job, Result> {
  id: number;
  job: Job;
  resolve(result: Result): void;
  reject(error: Error): void;
}

/**
 * N worker processes, each with its own model instance loaded from the same params; jobs (one
 * batch each) go to whichever worker is idle. A dead worker leaves the pool and fails its job;
 * queued jobs fail once none is left.
 */
export class WorkerPool<Job, Result> {
  private readonly queue: Pending<Job, Result>[] = [];
  private readonly busy = new Map<ChildProcess, Pending<Job, Result>>();
  private nextId = 0;

  private constructor(
    private readonly workers: ChildProcess[],
    /** `embedding worker`, `cross-encoder worker`: the start of every error message. */
    private readonly label: string,
  ) {
    for (const worker of workers) {
      worker.on('message', (reply: WorkerReply<unknown, Result>) => this.settle(worker, reply));
      worker.on('exit', (code, signal) => this.fail(worker, `exited (${signal ?? code})`));
      hold(worker, false);
    }
  }

  /** Starts `count` workers of `module` and waits until each has loaded its model; returns what the first reported. */
  static async start<Params, Ready, Job, Result>(
    module: string,
    label: string,
    params: Params,
    count: number,
  ): Promise<{ pool: WorkerPool<Job, Result>; ready: Ready }> {
    const workers = Array.from({ length: count }, () => startWorker(module));
    try {
      const ready = await Promise.all(
        workers.map(
          (worker) =>
            new Promise<Ready>((resolve, reject) => {
              worker.once('error', reject);
              worker.once('exit', (code) => reject(new Error(`${label} exited (${code}) while loading the model`)));
              worker.once('message', (reply: WorkerReply<Ready, Result>) => {
                if (reply.type === 'ready') resolve(reply.ready);
                else if (reply.type === 'failed') reject(reply.inputError ? new ConfigError(reply.message) : new Error(reply.message));
                else reject(new Error(`${label}: unexpected first message ${reply.type}`));
              });
              worker.send({ type: 'start', params } satisfies WorkerRequest<Params, Job>);
            }),
        ),
      );
      for (const worker of workers) worker.removeAllListeners();
      return { pool: new WorkerPool<Job, Result>(workers, label), ready: ready[0]! };
    } catch (error) {
      for (const worker of workers) worker.removeAllListeners().kill();
      throw error;
    }
  }

  get size(): number {
    return this.workers.length;
  }

  run(job: Job): Promise<Result> {
    return new Promise((resolve, reject) => {
      if (this.workers.length === 0) return reject(new Error(`${this.label} pool is closed`));
      this.queue.push({ id: this.nextId++, job, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const worker of this.workers) {
      if (this.queue.length === 0) return;
      if (this.busy.has(worker)) continue;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      hold(worker, true);
      worker.send({ type: 'run', id: pending.id, job: pending.job } satisfies WorkerRequest<unknown, Job>);
    }
  }

  private settle(worker: ChildProcess, reply: WorkerReply<unknown, Result>): void {
    const pending = this.busy.get(worker);
    if (!pending || !('id' in reply) || reply.id !== pending.id) return;
    this.busy.delete(worker);
    hold(worker, false);
    if (reply.type === 'result') pending.resolve(reply.result);
    else if (reply.type === 'error') pending.reject(new Error(`${this.label}: ${reply.message}`));
    this.dispatch();
  }

  private fail(worker: ChildProcess, why: string): void {
    const index = this.workers.indexOf(worker);
    if (index < 0) return;
    this.workers.splice(index, 1);
    const pending = this.busy.get(worker);
    this.busy.delete(worker);
    const error = new Error(`${this.label} ${why}`);
    pending?.reject(error);
    if (this.workers.length === 0) for (const queued of this.queue.splice(0)) queued.reject(error);
  }

  async dispose(): Promise<void> {
    const workers = this.workers.splice(0);
    for (const pending of this.queue.splice(0)) pending.reject(new Error(`${this.label} pool closed`));
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
