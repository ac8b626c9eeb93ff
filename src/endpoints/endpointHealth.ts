import type { FailureClass } from './generationError.js';

/**
 * Thrown instead of a request once an endpoint has failed every request for a while: the run stops
 * with one message (exit 3) instead of spending every item's retries on a server that is not there.
 */
export class EndpointUnavailableError extends Error {
  readonly endpoint: string;
  constructor(endpoint: string, detail: string) {
    super(`endpoint ${endpoint} is unavailable: ${detail}`);
    this.name = 'EndpointUnavailableError';
    this.endpoint = endpoint;
  }
}

export interface EndpointHealthOptions {
  /** Outage-like failures with no success in between for this long make the endpoint unavailable. */
  unavailableAfterMs: number;
  /** Definitive refusals (401, 403, 404) in a row, with no success in between, that make it unavailable. */
  refusalsInARow?: number;
  now?: () => number;
}

/** Failures that say the endpoint is not serving at all, as opposed to one request going wrong. */
function outageKind(failure: FailureClass): 'refusal' | 'outage' | undefined {
  if (failure.reason === 'auth' || (failure.reason === 'client-error' && failure.status === 404)) return 'refusal';
  if (failure.reason === 'connection' || failure.reason === 'timeout') return 'outage';
  if (failure.reason === 'server-error' && failure.status !== undefined && failure.status >= 500) return 'outage';
  return undefined;
}

/** A failure that says a server is not serving (refused connection, timeout, 5xx): its replica is drained. */
export const isOutage = (failure: FailureClass): boolean => outageKind(failure) === 'outage';

/**
 * A circuit breaker for one endpoint. Any answer from the server (even a 400 or an empty
 * completion) shows it is serving and resets the count; connection errors, timeouts and 5xx
 * for `unavailableAfterMs` with no answer in between, or `refusalsInARow` 401/403/404s, open it
 * for good: a run then stops early. Sporadic faults (a 30% fault rate) never open it.
 */
export class EndpointHealth {
  readonly endpoint: string;
  readonly #options: Required<EndpointHealthOptions>;
  #streakStartedAt: number | undefined;
  #streakAttempts = 0;
  #refusals = 0;
  #lastFailure = '';
  #unavailable: EndpointUnavailableError | undefined;

  constructor(endpoint: string, options: EndpointHealthOptions) {
    this.endpoint = endpoint;
    this.#options = { refusalsInARow: 3, now: Date.now, ...options };
  }

  /** Throws once the endpoint has been found unavailable. */
  assertAvailable(): void {
    if (this.#unavailable) throw this.#unavailable;
  }

  get unavailable(): boolean {
    return this.#unavailable !== undefined;
  }

  recordAnswer(): void {
    this.#streakStartedAt = undefined;
    this.#streakAttempts = 0;
    this.#refusals = 0;
  }

  recordFailure(failure: FailureClass, message: string): void {
    const kind = outageKind(failure);
    if (!kind) {
      // The server answered (400, 429, a malformed body): it is there.
      if (failure.status !== undefined || failure.reason === 'malformed-response') this.recordAnswer();
      return;
    }
    const now = this.#options.now();
    this.#streakStartedAt ??= now;
    this.#streakAttempts++;
    this.#lastFailure = message;
    if (kind === 'refusal') this.#refusals++;
    const elapsed = now - this.#streakStartedAt;
    if (this.#refusals >= this.#options.refusalsInARow) {
      this.#unavailable = new EndpointUnavailableError(
        this.endpoint,
        `${this.#refusals} requests in a row were refused (last: ${message}); check baseURL, model and the API key variable`,
      );
    } else if (elapsed >= this.#options.unavailableAfterMs && this.#streakAttempts >= 2) {
      this.#unavailable = new EndpointUnavailableError(
        this.endpoint,
        `every request for ${(elapsed / 1000).toFixed(0)} s failed (${this.#streakAttempts} attempts; last: ${this.#lastFailure})`,
      );
    }
  }
}
