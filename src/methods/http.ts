import { ConfigError } from '../errors.js';
import { EmptyCompletionError, MalformedResponseError } from '../endpoints/generationError.js';
import { responseCacheKey } from '../generation/responseCache.js';
import { describeProblems, mapReply, type MappedReply } from './external/mapping.js';
import { EXTERNAL_CALLS, externalCall } from './external/outcome.js';
import { CallPolicy } from './external/policy.js';
import { startLocalService } from './external/localService.js';
import { renderTemplate, renderUrl } from './external/template.js';
import type { MethodContext, MethodOutcome, RagMethod } from './types.js';
import type { HttpParams } from './httpSchema.js';

/** Thrown for a reply whose HTTP status is not 2xx: `status` and `headers` let the retry policy classify it (429, 5xx, Retry-After). */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 200)}`);
    this.name = 'HttpStatusError';
  }
}

/** The request headers, secrets read from the environment (a ConfigError names a variable that is not set). */
function requestHeaders(params: HttpParams, env: NodeJS.ProcessEnv): { headers: Record<string, string>; secrets: string[] } {
  const headers: Record<string, string> = { accept: 'application/json', ...params.headers };
  const secrets: string[] = [];
  const read = (name: string, what: string) => {
    const value = env[name];
    if (!value) throw new ConfigError(`method http (${params.url}): environment variable ${name} (${what}) is not set; export it, or remove ${what}`);
    secrets.push(value);
    return value;
  };
  if (params.apiKeyEnv) headers.authorization = `Bearer ${read(params.apiKeyEnv, 'apiKeyEnv')}`;
  for (const h of params.envHeaders) headers[h.header] = `${h.prefix}${read(h.env, `envHeaders ${h.header}`)}`;
  return { headers, secrets };
}

/**
 * Any RAG system behind an HTTP API as a method: per question one request (URL and JSON body
 * filled from the item), one reply mapped to the answer, the contexts it used and its usage.
 * Requests run under the policy of model calls (cache, endpoint concurrency, retries with
 * backoff and Retry-After, circuit breaker); a reply without the mapped answer, or not JSON, is
 * retried like a malformed completion, and an item whose requests all fail fails, counted.
 */
export function createHttpMethod(params: HttpParams): RagMethod {
  const { headers, secrets } = requestHeaders(params, process.env);
  const origin = new URL(params.url.replace(/\{[^}]*\}/g, 'x')).origin;
  const policy = new CallPolicy(origin, params, { secrets });
  const hasBody = params.method !== 'GET';
  const reportsContexts = params.response.contexts !== undefined;

  const parse = (raw: string, context: MethodContext): MappedReply => {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new MalformedResponseError(`reply is not valid JSON (${raw.length} bytes: ${JSON.stringify(raw.slice(0, 60))}…)`);
    }
    const { reply, problems } = mapReply(json, params.response, context.item, { defaultAnswer: 'answer', idPrefix: 'http' });
    if (!reply) throw new MalformedResponseError(`reply does not fit the response mapping: ${describeProblems('reply', problems).join('; ')}`);
    // No answer text at all is a transport-level fault until proven otherwise, as for a model.
    if (reply.answer.trim() === '') throw new EmptyCompletionError();
    return reply;
  };

  return {
    name: 'http',
    usesRetrieval: false,
    calls: EXTERNAL_CALLS,
    async prepare() {
      if (params.serve) await startLocalService(params.serve, params.url);
    },
    async run(context: MethodContext): Promise<MethodOutcome> {
      const url = renderUrl(params.url, context.item);
      const body = hasBody ? JSON.stringify(renderTemplate(params.body, context.item)) : undefined;
      // Keyed by the request (method, URL, body), never by headers: they may hold secrets.
      const key = params.cache ? responseCacheKey({ model: `http ${params.method} ${url}`, messages: body ?? '', params: {} }) : undefined;
      const attempt = async (signal?: AbortSignal) => {
        const timeout = AbortSignal.timeout(params.timeoutMs);
        const response = await fetch(url, {
          method: params.method,
          headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body } : {}),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        const raw = await response.text();
        if (!response.ok) throw new HttpStatusError(response.status, response.headers, raw);
        return { raw, value: parse(raw, context) };
      };
      return externalCall(context, policy, {
        method: 'http',
        step: { kind: 'http', label: 'ask', detail: { method: params.method, url }, request: `${params.method} ${url}` },
        key,
        attempt,
        fromCache: (raw) => parse(raw, context),
        prompt: [{ role: 'user', content: `${params.method} ${url}${body !== undefined ? `\n${body}` : ''}` }],
        reply: (value) => ({ reply: value ?? { answer: '', contexts: [] }, reportsContexts }),
      });
    },
  };
}
