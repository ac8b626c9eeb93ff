import { z } from 'zod';
import { retryAfterMs } from '../../io/retryAfter.js';
import { createThrottle } from './throttle.js';

/** The mediawiki-api builder's params of these names (see its schema), and where warnings go. */
export interface ApiClientOptions {
  apiUrl: string;
  userAgent: string;
  minIntervalMs: number;
  retries: number;
  maxlag: number;
  maxRetryAfterSeconds: number;
  /** Called once per distinct warning (module, code, text). */
  onWarning?(warning: ApiMessage): void;
}

export interface ApiMessage {
  code: string;
  text: string;
  module?: string;
}

const ApiMessageSchema = z.looseObject({ code: z.string(), text: z.string().optional(), '*': z.string().optional(), module: z.string().optional() });
const ApiResponseSchema = z.looseObject({
  errors: z.array(ApiMessageSchema).optional(),
  warnings: z.array(ApiMessageSchema).optional(),
  continue: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type ApiResponse = z.infer<typeof ApiResponseSchema> & Record<string, unknown>;

/** The API answered with an error (not a transient one, or one that stayed after the retries). */
export class MediawikiApiError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'MediawikiApiError';
  }
}

/** Errors that go away by waiting (server lag, read-only maintenance, rate limits). */
const TRANSIENT_CODES = new Set(['maxlag', 'readonly', 'ratelimited', 'internal_api_error_DBQueryError', 'internal_api_error_DBConnectionError']);

/**
 * A small MediaWiki Action API client over fetch. Not wikijs (docs/corpora.md): it hides the warnings,
 * `continue`, batched reads, `maxlag` and `Retry-After` that Wikimedia's etiquette needs. Requests use
 * `formatversion=2` and `errorformat=plaintext`: warnings and errors come as `[{ code, text, module }]`.
 */
export class MediawikiApiClient {
  private readonly throttle: <T>(call: () => Promise<T>) => Promise<T>;
  private readonly warningsSeen = new Set<string>();
  /** Warnings received in all (distinct ones are reported through onWarning). */
  warnings = 0;

  constructor(private readonly options: ApiClientOptions) {
    this.throttle = createThrottle(options.minIntervalMs);
  }

  /** One request (GET), retried when transient; throws MediawikiApiError on an `errors` answer. */
  async get(params: Record<string, string | number | undefined>, signal?: AbortSignal): Promise<ApiResponse> {
    const query = new URLSearchParams({ format: 'json', formatversion: '2', errorformat: 'plaintext' });
    if (this.options.maxlag > 0) query.set('maxlag', String(this.options.maxlag));
    for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value));
    const url = `${this.options.apiUrl}?${query}`;
    const what = `${this.options.apiUrl} ${describe(params)}`;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.throttle(() => this.attempt(url, what, signal));
      if (outcome.kind === 'ok') return outcome.response;
      if (attempt >= this.options.retries || signal?.aborted) {
        throw new MediawikiApiError(`${what}: ${outcome.reason} (gave up after ${attempt + 1} attempts)`, outcome.code);
      }
      const backoff = Math.max(50, this.options.minIntervalMs) * 2 ** attempt;
      const wait = outcome.retryAfterMs ?? backoff;
      if (wait > this.options.maxRetryAfterSeconds * 1000) {
        throw new MediawikiApiError(`${what}: ${outcome.reason}; the server asks to wait ${wait / 1000} s, more than maxRetryAfterSeconds (${this.options.maxRetryAfterSeconds})`, outcome.code);
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Every answer of a query, following `continue` to the end (or until the caller stops reading). */
  async *continued(params: Record<string, string | number | undefined>, signal?: AbortSignal): AsyncGenerator<ApiResponse> {
    let next: Record<string, string | number> = { continue: '' };
    for (;;) {
      const response = await this.get({ ...params, ...next }, signal);
      yield response;
      if (!response.continue) return;
      next = response.continue;
    }
  }

  private async attempt(
    url: string,
    what: string,
    signal?: AbortSignal,
  ): Promise<{ kind: 'ok'; response: ApiResponse } | { kind: 'retry'; reason: string; code: string; retryAfterMs?: number }> {
    let res: Response;
    try {
      res = await fetch(url, { headers: { 'User-Agent': this.options.userAgent, 'Api-User-Agent': this.options.userAgent, Accept: 'application/json' }, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      return { kind: 'retry', reason: `network error: ${(error as Error).cause ?? (error as Error).message}`, code: 'network' };
    }
    const retryAfter = retryAfterMs(res.headers);
    const body = await res.text();
    if (res.status === 429 || res.status >= 500) {
      return { kind: 'retry', reason: `HTTP ${res.status} ${res.statusText}${snippet(body)}`, code: `http${res.status}`, retryAfterMs: retryAfter };
    }
    if (!res.ok) throw new MediawikiApiError(`${what}: HTTP ${res.status} ${res.statusText}${snippet(body)}`, `http${res.status}`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new MediawikiApiError(`${what}: the answer is not JSON (is this the api.php URL?)${snippet(body)}`, 'notjson');
    }
    const parsed = ApiResponseSchema.safeParse(json);
    if (!parsed.success) throw new MediawikiApiError(`${what}: unexpected answer shape${snippet(body)}`, 'badshape');
    const response = parsed.data as ApiResponse;
    for (const warning of response.warnings ?? []) this.warn(warning);
    const error = response.errors?.[0];
    if (error) {
      const text = messageText(error);
      if (TRANSIENT_CODES.has(error.code)) return { kind: 'retry', reason: `API error ${error.code}: ${text}`, code: error.code, retryAfterMs: retryAfter };
      throw new MediawikiApiError(`${what}: API error ${error.code}: ${text}`, error.code);
    }
    return { kind: 'ok', response };
  }

  private warn(warning: z.infer<typeof ApiMessageSchema>): void {
    this.warnings++;
    const message: ApiMessage = { code: warning.code, text: messageText(warning), ...(warning.module ? { module: warning.module } : {}) };
    const key = `${message.module}\u0000${message.code}\u0000${message.text}`;
    if (this.warningsSeen.has(key)) return;
    this.warningsSeen.add(key);
    this.options.onWarning?.(message);
  }
}

function messageText(message: { text?: string; '*'?: string; code: string }): string {
  return message.text ?? message['*'] ?? message.code;
}

function describe(params: Record<string, string | number | undefined>): string {
  const keys = ['list', 'prop', 'titles', 'cmtitle', 'srsearch'];
  return keys.filter((k) => params[k] !== undefined).map((k) => `${k}=${String(params[k]).slice(0, 80)}`).join(' ');
}

function snippet(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return text ? `: ${text}` : '';
}
