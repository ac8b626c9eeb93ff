// Below endpoints/ on purpose: the endpoint retry policy, the rate limiter and the MediaWiki corpus
// client (a lower layer than endpoints/) read the same header.

function header(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  const value = typeof (headers as Headers).get === 'function' ? (headers as Headers).get(name) : (headers as Record<string, unknown>)[name];
  // An empty header says nothing (Number('') would read it as "retry at once").
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Parses `retry-after-ms` / `Retry-After` (delta seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (header(headers, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = header(headers, 'retry-after');
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
