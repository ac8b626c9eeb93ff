import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection, when V8 lets the process ask for one (else nothing).
 *
 * Why: loading a benchmark keeps thousands of freshly parsed objects alive at once, and V8 then
 * allocates every later object of the same code straight into the old generation
 * (allocation-site pretenuring). While the viewer indexes, each record's short-lived objects then
 * pile up in old space until V8's next full collection, which its heuristics put off until the
 * heap has grown by 100 MB and more. Collecting after every few MB indexed keeps the heap near its
 * live size (~20 MB) for a few ms each time. `--expose-gc` set at run time takes effect for new
 * contexts, which is where `gc` is read from (the process's own global stays as it was).
 */
export const fullGc: () => void = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') return () => (gc as () => void)();
  } catch {
    // a runtime that refuses the flag: V8's own schedule
  }
  return () => undefined;
})();
