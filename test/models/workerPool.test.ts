import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { WorkerPool } from '../../src/models/workerPool.js';

const WORKER = fileURLToPath(new URL('./echoWorker.ts', import.meta.url));
type Job = number[] | 'crash' | 'fail';
const start = (count: number, params: { refuse?: boolean } = {}) =>
  WorkerPool.start<{ refuse?: boolean }, { pid: number }, Job, number[]>(WORKER, 'test worker', params, count);

describe('the model worker pool', () => {
  it('spreads jobs over its workers and answers each job with its own result', async () => {
    const { pool, ready } = await start(2);
    expect(ready.pid).toBeGreaterThan(0);
    const results = await Promise.all([[1], [2, 3], [4], [5]].map((job) => pool.run(job)));
    expect(results).toEqual([[2], [4, 6], [8], [10]]);
    await pool.dispose();
    await expect(pool.run([1])).rejects.toThrow(/test worker pool is closed/);
  });

  it('reports a worker that cannot load as the error it threw (a ConfigError stays one)', async () => {
    await expect(start(2, { refuse: true })).rejects.toThrow(ConfigError);
  });

  it('fails the job of a worker that throws, and keeps serving', async () => {
    const { pool } = await start(1);
    await expect(pool.run('fail')).rejects.toThrow('test worker: no such batch');
    expect(await pool.run([7])).toEqual([14]);
    await pool.dispose();
  });

  it('drops a worker that dies, failing its job; the others carry on', async () => {
    const { pool } = await start(2);
    await expect(pool.run('crash')).rejects.toThrow(/test worker exited \(3\)/);
    expect(pool.size).toBe(1);
    expect(await pool.run([1, 2])).toEqual([2, 4]);
    await pool.dispose();
  });
});
