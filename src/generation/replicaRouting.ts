import { isOutage } from '../endpoints/endpointHealth.js';
import { classifyFailure } from '../endpoints/retryPolicy.js';
import type { Call, CallLayer, ReplicaTarget } from './callLayers.js';

/** One replica of a pool, with what routing needs to know of it. */
interface Replica extends ReplicaTarget {
  inFlight: number;
  failures: number;
  coolingUntil: number;
}

/**
 * The innermost layer: each attempt goes to the replica with the fewest requests in flight among
 * those not cooling down after a failure (ties to the first listed; when all are cooling down, the
 * one back soonest). In a pool, a replica that is not serving is drained for a while, longer each time.
 */
export function replicaRouting(targets: ReplicaTarget[]): CallLayer {
  const replicas: Replica[] = targets.map((target) => ({ ...target, inFlight: 0, failures: 0, coolingUntil: 0 }));
  const pick = (): Replica => {
    const now = Date.now();
    const ready = replicas.filter((r) => r.coolingUntil <= now);
    const pool = ready.length ? ready : [...replicas].sort((a, b) => a.coolingUntil - b.coolingUntil).slice(0, 1);
    return pool.reduce((best, r) => (r.inFlight < best.inFlight ? r : best));
  };
  return async (call: Call) => {
    const replica = pick();
    replica.inFlight++;
    try {
      const result = await call.send(call.options.signal, replica);
      replica.failures = 0;
      replica.coolingUntil = 0;
      return result;
    } catch (error) {
      if (replicas.length > 1 && isOutage(classifyFailure(error))) {
        replica.failures++;
        replica.coolingUntil = Date.now() + Math.min(30_000, 500 * 2 ** (replica.failures - 1));
      }
      throw error;
    } finally {
      replica.inFlight--;
    }
  };
}
