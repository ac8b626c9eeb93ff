/** Spaces calls at least `minIntervalMs` apart (one at a time): a polite client for a public API. */
export function createThrottle(minIntervalMs: number): <T>(call: () => Promise<T>) => Promise<T> {
  let last = 0;
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(call: () => Promise<T>) => {
    const run = queue.then(async () => {
      const wait = last + minIntervalMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        return await call();
      } finally {
        last = Date.now();
      }
    });
    queue = run.catch(() => {});
    return run;
  };
}
