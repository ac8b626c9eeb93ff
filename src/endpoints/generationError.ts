/** Why a generation request failed; recorded with the failed item. */
export type GenerationFailureReason =
  | 'rate-limited'
  | 'server-error'
  | 'timeout'
  | 'connection'
  | 'malformed-response'
  | 'empty-completion'
  | 'endpoint-unavailable'
  | 'auth'
  | 'client-error'
  | 'aborted'
  | 'batch-failed'
  | 'unknown';

/** How a failed call is treated: its reason, whether another attempt may succeed, and when. */
export interface FailureClass {
  reason: GenerationFailureReason;
  retryable: boolean;
  status?: number;
  /** From `retry-after-ms` or `Retry-After` (seconds or HTTP date). */
  retryAfterMs?: number;
}

/** A request that failed for good (not retryable, or retries exhausted). */
export class GenerationError extends Error {
  readonly reason: GenerationFailureReason;
  /** Requests made, the failed ones included. */
  readonly attempts: number;
  readonly status?: number;

  constructor(message: string, details: { reason: GenerationFailureReason; attempts: number; status?: number; cause?: unknown }) {
    super(message, { cause: details.cause });
    this.name = 'GenerationError';
    this.reason = details.reason;
    this.attempts = details.attempts;
    this.status = details.status;
  }
}

/** The server answered 200 with a body that is not a chat completion. */
export class MalformedResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedResponseError';
  }
}

/** HTTP 200 with no answer text: usually transient (an overloaded backend, a cut stream), so retried like a 5xx. */
export class EmptyCompletionError extends Error {
  constructor() {
    super('the completion is empty (HTTP 200 with no answer text)');
    this.name = 'EmptyCompletionError';
  }
}
