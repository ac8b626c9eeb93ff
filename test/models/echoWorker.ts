// A worker process for the worker-pool tests: doubles numbers; `crash` exits, `fail` throws.
import { serveModelWorker } from '../../src/models/workerProcess.js';
import { ConfigError } from '../../src/errors.js';

serveModelWorker<{ refuse?: boolean }, { pid: number }, number[] | 'crash' | 'fail', number[]>(async (params) => {
  if (params.refuse) throw new ConfigError('refused to load');
  return {
    ready: { pid: process.pid },
    async run(job) {
      if (job === 'crash') process.exit(3);
      if (job === 'fail') throw new Error('no such batch');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return job.map((x) => 2 * x);
    },
  };
});
