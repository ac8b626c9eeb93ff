import pLimit, { type LimitFunction } from 'p-limit';

// One limiter per endpoint for the whole process: generators, judges and extractors that talk to
// the same server share its bound, whichever stage created them.
const limiters = new Map<string, LimitFunction>();

/**
 * The limiter of `baseURL`. When two configs name the same endpoint with different bounds, the
 * smaller one holds (the server's limit is a property of the server, not of the caller).
 */
export function endpointLimiter(baseURL: string, concurrency: number): LimitFunction {
  const key = baseURL.replace(/\/+$/, '');
  const existing = limiters.get(key);
  if (existing) {
    if (concurrency < existing.concurrency) existing.concurrency = concurrency;
    return existing;
  }
  const limiter = pLimit(concurrency);
  limiters.set(key, limiter);
  return limiter;
}
