import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection, when V8 lets the process ask for one (else nothing). Why: after a
 * benchmark is loaded, V8 pretenures the indexer's short-lived objects into old space, where they
 * pile up by 100 MB and more before V8's next full collection; one every few MB indexed keeps the
 * heap near its live size (~20 MB). `--expose-gc` set at run time reaches only new contexts' `gc`.
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
