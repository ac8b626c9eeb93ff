import { ServiceUnavailableError } from '../errors.js';
import { isOutage } from '../endpoints/endpointHealth.js';
import { classifyFailure, describeFailure } from '../endpoints/retryPolicy.js';

/** The openai embedder's pool params of these names (see its schema), and what the replicas serve, for messages. */
export interface ReplicaPoolOptions {
  maxConcurrency: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  what: string;
}

/** One replica: where it is, its client, and what routing knows of it. */
export interface Replica<C> {
  readonly url: string;
  readonly client: C;
  /** Requests in flight now. */
  inFlight: number;
  /** Requests sent so far (answered or not). */
  requests: number;
  /** Failures in a row since its last answer (0: healthy, or not tried yet); requests already in flight when one failed do not add to it. */
  streak: number;
  /** Times it was marked failing: a request sent before the latest mark does not mark it again. */
  marks: number;
  /** Not given requests before this time (ms since the epoch). */
  coolingUntil: number;
  lastFailure?: string;
  /** Order of the last request it was given (ties of in-flight counts go to the one idle longest). */
  lastPicked: number;
}

/** A replica given to a request, with its `marks` at that moment. */
interface Grant<C> {
  replica: Replica<C>;
  marks: number;
}

interface Waiter<C> {
  resolve(grant: Grant<C>): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Replicas of one server (TEI per GPU, vLLM data-parallel) used as one endpoint. Each request goes to
 * the least-busy replica not cooling down (at most `maxConcurrency` each). A replica that fails
 * (connection refused, timeout, 5xx, 429) is drained for a cooldown that doubles with each failure in a
 * row, and the request is retried at once elsewhere; only while every replica is failing does a request
 * wait and count a retry, past `maxRetries` failing with a ServiceUnavailableError naming every
 * replica. Other failures (400, 401, 404: the request or config is wrong) are thrown as they are.
 */
export class ReplicaPool<C> {
  readonly replicas: Replica<C>[];
  readonly #options: ReplicaPoolOptions;
  readonly #waiters: Waiter<C>[] = [];
  #picks = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(replicas: { url: string; client: C }[], options: ReplicaPoolOptions) {
    if (replicas.length === 0) throw new Error('a replica pool needs at least one replica');
    this.replicas = replicas.map(({ url, client }) => ({ url, client, inFlight: 0, requests: 0, streak: 0, marks: 0, coolingUntil: 0, lastPicked: -1 }));
    this.#options = options;
  }

  /** Requests the pool can have in flight at once (every replica's share). */
  get concurrency(): number {
    return this.#options.maxConcurrency * this.replicas.length;
  }

  /** Runs `request` on a replica, re-routing and retrying as described above. */
  async run<R>(request: (client: C, replica: Replica<C>) => Promise<R>, signal?: AbortSignal): Promise<R> {
    let setbacks = 0;
    let attempts = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { replica, marks } = await this.#acquire(signal);
      replica.requests++;
      attempts++;
      let result: R;
      try {
        result = await request(replica.client, replica);
      } catch (error) {
        this.#release(replica);
        if (signal?.aborted) throw error;
        const failure = classifyFailure(error);
        const drains = isOutage(failure) || failure.reason === 'rate-limited';
        if (!drains && !failure.retryable) throw error;
        replica.lastFailure = describeFailure(error);
        // One outage fails every request in flight at once: it lengthens the cooldown once, not once per request.
        if (replica.marks === marks) {
          replica.marks++;
          replica.streak++;
          const backoff = Math.min(this.#options.retryMaxMs, this.#options.retryBaseMs * 2 ** (replica.streak - 1));
          replica.coolingUntil = Date.now() + Math.max(backoff, failure.retryAfterMs ?? 0);
        }
        // Another replica is serving: the request goes there at once.
        if (drains && this.replicas.some((r) => r.streak === 0)) continue;
        if (++setbacks > this.#options.maxRetries) throw this.#unavailable(attempts);
        continue;
      }
      replica.streak = 0;
      replica.coolingUntil = 0;
      this.#release(replica);
      return result;
    }
  }

  #unavailable(attempts: number): ServiceUnavailableError {
    const { what } = this.#options;
    if (this.replicas.length === 1) {
      const [only] = this.replicas;
      return new ServiceUnavailableError(`${what} at ${only!.url} is unavailable: ${attempts} attempts failed (last: ${only!.lastFailure ?? 'unknown'})`);
    }
    const each = this.replicas.map((r) => `${r.url} (${r.lastFailure ?? 'no answer'})`).join('; ');
    return new ServiceUnavailableError(`${what}: every one of its ${this.replicas.length} replicas is unavailable (${attempts} attempts failed): ${each}`);
  }

  #acquire(signal?: AbortSignal): Promise<Grant<C>> {
    return new Promise<Grant<C>>((resolve, reject) => {
      const waiter: Waiter<C> = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const at = this.#waiters.indexOf(waiter);
          if (at >= 0) this.#waiters.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
      this.#dispatch();
    });
  }

  #release(replica: Replica<C>): void {
    replica.inFlight--;
    this.#dispatch();
  }

  /** Hands free slots to waiting requests, first come first served; wakes up when a cooldown ends. */
  #dispatch(): void {
    const { maxConcurrency } = this.#options;
    while (this.#waiters.length > 0) {
      const now = Date.now();
      const open = this.replicas.filter((r) => r.inFlight < maxConcurrency);
      const ready = open.filter((r) => r.coolingUntil <= now);
      if (ready.length === 0) {
        // Every replica with a free slot is cooling down: wake up when the first is back.
        if (open.length > 0 && !this.#timer) {
          const soonest = Math.min(...open.map((r) => r.coolingUntil));
          this.#timer = setTimeout(() => {
            this.#timer = undefined;
            this.#dispatch();
          }, Math.max(1, soonest - now));
        }
        return;
      }
      const replica = ready.reduce((best, r) => (r.inFlight < best.inFlight || (r.inFlight === best.inFlight && r.lastPicked < best.lastPicked) ? r : best));
      replica.inFlight++;
      replica.lastPicked = this.#picks++;
      const waiter = this.#waiters.shift()!;
      if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
      waiter.resolve({ replica, marks: replica.marks });
    }
  }
}
