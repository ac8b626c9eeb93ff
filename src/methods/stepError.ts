/**
 * A method step that failed for good (a generation after the endpoint's retries, a retrieval, an
 * intermediate reply left empty): the item is recorded as `generation_failed` with this message,
 * which names the step, and excluded from the means.
 */
export class MethodStepError extends Error {
  constructor(
    readonly step: number,
    readonly label: string,
    readonly kind: string,
    cause: unknown,
    /**
     * Set when the failure will repeat for every item (a model that does not support what the
     * method needs): the item is recorded as failed and the run stops instead of spending the rest.
     */
    readonly stopsRun = false,
  ) {
    super(`step ${step} (${kind} "${label}") failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MethodStepError';
  }
}
