import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server that speaks enough of the OpenAI HTTP protocol for tests: chat completions
 * (plain and streamed), embeddings (float and base64 encodings) and the model list, on
 * 127.0.0.1 with an ephemeral port, with deterministic fault injection.
 */

export interface ChatRequestBody {
  model: string;
  /** Tool-calling conversations: assistant messages may carry `tool_calls`, `tool` messages answer them. */
  messages: { role: string; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  /** Tools offered to the model (OpenAI function-calling format). */
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

/** A tool call the model makes: OpenAI sends `arguments` as a JSON string; give `args` as an object. */
export interface ToolCallReply {
  name: string;
  args: Record<string, unknown>;
}
/**
 * A reply: text, or content with reasoning apart (`reasoning_content`, as DeepSeek and vLLM's
 * reasoning parsers return it), tool calls, and the content's tokens with their log probabilities
 * (returned when the request asks for `logprobs`; without them, one token per character at p ≈ 0.99).
 */
export type ChatReply = string | { content: string | null; reasoning_content?: string; tool_calls?: ToolCallReply[]; logprobs?: TokenLogprobReply[] };
export type Responder = (request: ChatRequestBody) => ChatReply | Promise<ChatReply>;

/** One generated token and its natural-log probability. */
export interface TokenLogprobReply {
  token: string;
  logprob: number;
}

/** A `/v1/completions` request: a text to continue, as written. */
export interface CompletionRequestBody {
  model: string;
  prompt: string;
  max_tokens?: number;
  stop?: string | string[];
  /** The completions API's logprobs: how many alternatives per token (any number asks for the tokens' own). */
  logprobs?: number;
  temperature?: number;
  [key: string]: unknown;
}
export type CompletionReply = string | { text: string; logprobs?: TokenLogprobReply[] };
export type CompletionResponder = (request: CompletionRequestBody) => CompletionReply | Promise<CompletionReply>;

export type FaultKind = '429' | '500' | 'timeout' | 'malformed' | 'empty' | 'reset';

export interface FaultOptions {
  /** Probability in [0, 1] that a chat request gets a fault. */
  rate: number;
  kinds: FaultKind[];
  seed: number;
  /**
   * Faults for the first chat requests in arrival order (`null` = answer normally), before the
   * seeded draw takes over: for tests that need "fails twice, then succeeds".
   */
  script?: (FaultKind | null)[];
  /** Retry-After sent with 429 (seconds, may be fractional; also sent as `retry-after-ms`). Default 1. */
  retryAfterSeconds?: number;
}

export interface StartOptions {
  respond?: Responder;
  faults?: FaultOptions;
  embeddings?: (texts: string[]) => number[][];
  /** When set, requests must carry `Authorization: Bearer <requireKey>` or get 401. */
  requireKey?: string;
  /** Model ids listed by GET /v1/models. */
  models?: string[];
  /** Port to listen on (default: an ephemeral one); a test that restarts an endpoint reuses its port. */
  port?: number;
  /** Answer a request that offers `tools` with HTTP 400, as servers of models without tool calling do. */
  rejectTools?: boolean;
  /** How usage counts a text: characters by default (a figure a test can tell from hisrag's estimate); a test of the plan's bounds counts as hisrag does. */
  countTokens?: (text: string) => number;
  /**
   * Enforce a request rate as providers do: a per-minute limit taken over one-second windows (600 a
   * minute = at most 10 in any second); a request beyond it gets 429 with `retry-after-ms`. With
   * `headers: 'openai'` every chat response also carries `x-ratelimit-{limit,remaining,reset}-requests`;
   * with `'none'` (DeepSeek, vLLM) the 429 carries only Retry-After.
   */
  rateLimit?: { requestsPerMinute: number; headers: 'openai' | 'none' };
  /** How the Batch API (files, batches) behaves; it is always served. */
  batch?: BatchServerOptions;
  /**
   * `/v1/completions`: the continuation of a prompt. Default: the chat responder's content for one
   * user message holding the prompt. Faults are drawn for it as for chat requests.
   */
  complete?: CompletionResponder;
  /** Ignore `logprobs` in requests (as endpoints without them do: DeepSeek's reasoner): replies carry none. */
  noLogprobs?: boolean;
}

/**
 * OpenAI's Batch API as the server plays it: files uploaded (multipart, purpose `batch`), a batch
 * going validating → in_progress → finalizing → completed one state per `pollsPerState` status
 * requests, its output and error files downloadable. Lines answer through the same responder as
 * live chat completions (never counted as chat requests).
 */
export interface BatchServerOptions {
  /** Status requests a batch spends in each state before the next (default 1). */
  pollsPerState?: number;
  /** Lines that fail (HTTP 500 in the error file): by custom_id and how often the id was seen in batches (1 = first). */
  failLine?: (customId: string, occurrence: number) => boolean;
  /** Batches (1-based, in creation order) that expire instead of completing, answering only this share of their lines. */
  expire?: (batchNumber: number) => number | undefined;
  /** Milliseconds every status request waits before answering (a slow poll). */
  pollDelayMs?: number;
}

/** One batch the server holds, as `GET /v1/batches/{id}` returns it plus what it was asked. */
export interface ServedBatch {
  id: string;
  number: number;
  status: string;
  input_file_id: string;
  customIds: string[];
  polls: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  fault?: FaultKind;
  /** Refused by the server's rate limit (429). */
  rateLimited?: boolean;
}

export interface OpenAIServer {
  /** Base URL including `/v1`, as clients take it. */
  url: string;
  requests: RecordedRequest[];
  /** Chat requests only. */
  chatRequests(): RecordedRequest[];
  /** `/v1/completions` requests only. */
  completionRequests(): RecordedRequest[];
  /** Batches created, in order. */
  batches: ServedBatch[];
  /** The custom_ids the server answered (or failed) in batches, one entry per line processed. */
  batchLines: string[];
  close(): Promise<void>;
}

/** One content part of a multimodal message, as OpenAI's protocol carries it. */
export type RequestContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };

/** A request message's content parts: a string content is one text part; `null` none. */
export function contentParts(content: unknown): RequestContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as RequestContentPart[]) : [];
}

/** A request message's text (its text parts joined; images left out). */
export function contentText(content: unknown): string {
  return contentParts(content).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The `image_url` URLs of a request, in message and part order (what a vision model was shown). */
export function requestImageUrls(request: ChatRequestBody): string[] {
  return request.messages.flatMap((m) => contentParts(m.content).flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : [])));
}

function lastUserMessage(request: ChatRequestBody): string {
  return contentText([...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '');
}

let toolCallId = 0;

/** The rate limit's counting window (see `rateLimit`). */
const WINDOW_MS = 950;

const defaultResponder: Responder = (request) => `模拟回答：${lastUserMessage(request).slice(-40)}`;

function defaultEmbeddings(texts: string[]): number[][] {
  return texts.map((text) => {
    const digest = createHash('sha256').update(text).digest();
    const vector = Array.from({ length: 8 }, (_, i) => digest[i]! / 255 - 0.5);
    const norm = Math.hypot(...vector) || 1;
    return vector.map((v) => v / norm);
  });
}

/** Uniform number in [0, 1) from a hash: faults depend on (seed, body, how often it was seen), not on timing. */
function hashUnit(...parts: (string | number)[]): number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function toBase64Float32(vector: number[]): string {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => buffer.writeFloatLE(v, i * 4));
  return buffer.toString('base64');
}

/** A request's stop sequences as a list. */
function stopsOf(stop: unknown): string[] {
  if (typeof stop === 'string') return [stop];
  return Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string' && s !== '') : [];
}

/** The text before the first stop sequence (left out, as OpenAI and vLLM do), and whether one was met. */
export function cutAtStop(text: string, stop: string[]): { text: string; stopped: boolean } {
  let end = -1;
  for (const s of stop) {
    const at = text.indexOf(s);
    if (at >= 0 && (end < 0 || at < end)) end = at;
  }
  return end < 0 ? { text, stopped: false } : { text: text.slice(0, end), stopped: true };
}

/** The tokens of a reply's text: the responder's own (kept while they fit the text), or one per character at p ≈ 0.99. */
function tokensOf(text: string, given: TokenLogprobReply[] | undefined): TokenLogprobReply[] {
  if (!given) return [...text].map((token) => ({ token, logprob: -0.01 }));
  const out: TokenLogprobReply[] = [];
  let used = 0;
  for (const t of given) {
    if (used + t.token.length > text.length) break;
    out.push(t);
    used += t.token.length;
  }
  return out;
}

export async function startOpenAIServer(options: StartOptions = {}): Promise<OpenAIServer> {
  const respond = options.respond ?? defaultResponder;
  const embed = options.embeddings ?? defaultEmbeddings;
  const requests: RecordedRequest[] = [];
  const seen = new Map<string, number>();
  let completionId = 0;

  let chatCount = 0;
  // Arrival times of the chat requests the rate limit let through in the last second.
  const accepted: number[] = [];
  function pickFault(path: string, raw: string): FaultKind | undefined {
    const faults = options.faults;
    const scripted = faults?.script?.[chatCount++];
    if (scripted !== undefined) return scripted ?? undefined;
    if (!faults || faults.kinds.length === 0) return undefined;
    const occurrence = (seen.get(raw) ?? 0) + 1;
    seen.set(raw, occurrence);
    if (hashUnit(faults.seed, path, raw, occurrence, 'rate') >= faults.rate) return undefined;
    const index = Math.floor(hashUnit(faults.seed, path, raw, occurrence, 'kind') * faults.kinds.length);
    return faults.kinds[index];
  }

  async function chat(req: IncomingMessage, res: ServerResponse, raw: string, record: RecordedRequest): Promise<void> {
    const request = JSON.parse(raw) as ChatRequestBody;
    if (options.rejectTools && request.tools?.length) {
      sendJson(res, 400, { error: { message: `model ${request.model} does not support tools`, type: 'invalid_request_error', param: 'tools' } });
      return;
    }
    let rateHeaders: Record<string, string> = {};
    if (options.rateLimit) {
      const { requestsPerMinute, headers } = options.rateLimit;
      const perSecond = Math.max(1, Math.floor(requestsPerMinute / 60));
      // The window is one second less 50 ms of slack (a provider's bucket refills continuously): a
      // client paced at the limit passes, a burst does not, and a request a few ms late on a loaded
      // test machine does not turn into a 429.
      const now = Date.now();
      while (accepted.length && accepted[0]! <= now - WINDOW_MS) accepted.shift();
      const resetMs = accepted.length ? accepted[0]! + WINDOW_MS - now : 0;
      const openai = (remaining: number): Record<string, string> =>
        headers === 'openai' ? { 'x-ratelimit-limit-requests': String(requestsPerMinute), 'x-ratelimit-remaining-requests': String(remaining), 'x-ratelimit-reset-requests': `${Math.max(0, resetMs)}ms` } : {};
      if (accepted.length >= perSecond) {
        record.rateLimited = true;
        sendJson(res, 429, { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after-ms': String(Math.max(1, resetMs)), 'retry-after': String(Math.max(1, Math.ceil(resetMs / 1000))), ...openai(0) });
        return;
      }
      accepted.push(now);
      rateHeaders = openai(perSecond - accepted.length);
    }
    const fault = pickFault('/v1/chat/completions', raw);
    record.fault = fault;
    if (sendFault(fault, req, res)) return;
    if (!request.stream) return sendJson(res, 200, await completionBody(request, fault === 'empty'), rateHeaders);
    const { message, content, usage, id, created } = await replyOf(request, fault === 'empty');
    if (request.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
        );
      chunk({ role: 'assistant', content: '' }, null);
      if (message.reasoning_content) chunk({ reasoning_content: message.reasoning_content }, null);
      for (let i = 0; i < content.length; i += 8) chunk({ content: content.slice(i, i + 8) }, null);
      chunk({}, 'stop');
      if (request.stream_options?.include_usage) {
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
      return;
    }
  }

  /** `/v1/completions`: the responder's continuation, cut at the first stop sequence, with the API's logprobs format. */
  async function textCompletion(req: IncomingMessage, res: ServerResponse, raw: string, record: RecordedRequest): Promise<void> {
    const request = JSON.parse(raw) as CompletionRequestBody;
    const fault = pickFault('/v1/completions', raw);
    record.fault = fault;
    if (sendFault(fault, req, res)) return;
    let reply: CompletionReply;
    if (fault === 'empty') reply = '';
    else if (options.complete) reply = await options.complete(request);
    else {
      const chatReply = await respond({ model: request.model, messages: [{ role: 'user', content: request.prompt }] });
      reply = typeof chatReply === 'string' ? chatReply : { text: chatReply.content ?? '', ...(chatReply.logprobs ? { logprobs: chatReply.logprobs } : {}) };
    }
    const full = typeof reply === 'string' ? reply : reply.text;
    const { text } = cutAtStop(full, stopsOf(request.stop));
    const count = options.countTokens ?? ((t: string) => t.length);
    const tokens = tokensOf(text, typeof reply === 'string' ? undefined : reply.logprobs);
    const offsets = tokens.reduce<number[]>((acc, t, i) => [...acc, i === 0 ? 0 : acc[i - 1]! + tokens[i - 1]!.token.length], []);
    const logprobs = request.logprobs !== undefined && request.logprobs !== null && !options.noLogprobs
      ? { tokens: tokens.map((t) => t.token), token_logprobs: tokens.map((t) => t.logprob), top_logprobs: tokens.map((t) => ({ [t.token]: t.logprob })), text_offset: offsets }
      : null;
    const usage = { prompt_tokens: count(request.prompt), completion_tokens: count(text), total_tokens: count(request.prompt) + count(text) };
    sendJson(res, 200, { id: `cmpl-${++completionId}`, object: 'text_completion', created: Math.floor(Date.now() / 1000), model: request.model, choices: [{ index: 0, text, logprobs, finish_reason: 'stop' }], usage });
  }

  /** Sends the injected fault (true), or nothing (false: answer normally). */
  function sendFault(fault: FaultKind | undefined, req: IncomingMessage, res: ServerResponse): boolean {
    switch (fault) {
      case '429': {
        const seconds = options.faults?.retryAfterSeconds ?? 1;
        sendJson(res, 429, { error: { message: 'Rate limit reached', type: 'rate_limit_error' } }, {
          'retry-after': String(Math.ceil(seconds)),
          'retry-after-ms': String(Math.round(seconds * 1000)),
        });
        return true;
      }
      case '500':
        sendJson(res, 500, { error: { message: 'Internal server error', type: 'server_error' } });
        return true;
      case 'timeout':
        // Never answer: the client's timeout must fire. close() destroys the socket.
        return true;
      case 'reset':
        req.socket.destroy();
        return true;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id": "chatcmpl-broken", "choices": [{"index": 0, "message": {"role": "assist');
        return true;
      default:
        return false;
    }
  }

  /** The responder's reply to a request with what a completion reports of it: tool calls, usage, id. */
  async function replyOf(request: ChatRequestBody, empty = false) {
    const reply = empty ? { content: '' } : await respond(request);
    const given = typeof reply === 'string' ? { content: reply } : reply;
    // Stop sequences end the whole output, reasoning included (vLLM matches them before its reasoning parser splits the text).
    const stop = stopsOf(request.stop);
    const reasoning = given.reasoning_content !== undefined ? cutAtStop(given.reasoning_content, stop) : undefined;
    const message = reasoning?.stopped ? { ...given, reasoning_content: reasoning.text, content: '' } : { ...given, content: given.content === null ? null : cutAtStop(given.content ?? '', stop).text };
    const content = message.content ?? '';
    // Text characters, and a flat 100 per image: a usage figure a test can tell from hisrag's own estimate.
    const count = options.countTokens ?? ((text: string) => text.length);
    const promptChars = request.messages.reduce((n, m) => n + (typeof m.content === 'string' || m.content === null ? count(String(m.content ?? '')) : count(contentText(m.content)) + 100 * contentParts(m.content).filter((p) => p.type === 'image_url').length), 0);
    const toolCalls = (typeof reply === 'string' ? [] : (reply.tool_calls ?? [])).map((call) => ({
      id: `call_${++toolCallId}`,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
    const completionChars = count(content) + toolCalls.reduce((n, c) => n + count(c.function.arguments), 0);
    const usage = { prompt_tokens: promptChars, completion_tokens: completionChars, total_tokens: promptChars + completionChars };
    return { message, content, toolCalls, usage, id: `chatcmpl-${++completionId}`, created: Math.floor(Date.now() / 1000) };
  }

  /** A chat completion's JSON for a request (what a live call returns and a batch output line carries). */
  async function completionBody(request: ChatRequestBody, empty = false): Promise<Record<string, unknown>> {
    const { message, content, toolCalls, usage, id, created } = await replyOf(request, empty);
    const logprobs = request.logprobs === true && !options.noLogprobs
      ? { content: tokensOf(content, message.logprobs).map((t) => ({ token: t.token, logprob: t.logprob, bytes: [...Buffer.from(t.token)], top_logprobs: [{ token: t.token, logprob: t.logprob, bytes: [...Buffer.from(t.token)] }] })) }
      : undefined;
    return {
      id,
      object: 'chat.completion',
      created,
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: message.content,
            ...(message.reasoning_content !== undefined ? { reasoning_content: message.reasoning_content } : {}),
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
          ...(logprobs ? { logprobs } : {}),
        },
      ],
      usage,
    };
  }

  // The Batch API's state: uploaded files and batches.
  const files = new Map<string, { bytes: Buffer; filename: string; purpose: string }>();
  const batches = new Map<string, ServedBatch & { lines: { custom_id: string; body: ChatRequestBody }[]; output_file_id?: string; error_file_id?: string; counts: { total: number; completed: number; failed: number }; created_at: number }>();
  const batchLines: string[] = [];
  const lineSeen = new Map<string, number>();
  let fileCount = 0;
  const batchOptions = options.batch ?? {};

  async function uploadFile(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const form = await new Request('http://local/v1/files', { method: 'POST', headers: req.headers as Record<string, string>, body: raw }).formData();
    const file = form.get('file');
    if (!(file instanceof Blob) || form.get('purpose') !== 'batch') return sendJson(res, 400, { error: { message: 'expected a file and purpose=batch', type: 'invalid_request_error' } });
    const id = `file-${++fileCount}`;
    const bytes = Buffer.from(await file.arrayBuffer());
    files.set(id, { bytes, filename: (file as File).name ?? 'upload.jsonl', purpose: 'batch' });
    sendJson(res, 200, { id, object: 'file', bytes: bytes.length, created_at: Math.floor(Date.now() / 1000), filename: (file as File).name, purpose: 'batch', status: 'processed' });
  }

  function batchJson(batch: NonNullable<ReturnType<typeof batches.get>>): Record<string, unknown> {
    return {
      id: batch.id,
      object: 'batch',
      endpoint: '/v1/chat/completions',
      input_file_id: batch.input_file_id,
      completion_window: '24h',
      status: batch.status,
      output_file_id: batch.output_file_id ?? null,
      error_file_id: batch.error_file_id ?? null,
      created_at: batch.created_at,
      request_counts: batch.counts,
      errors: null,
      metadata: {},
    };
  }

  function createBatch(res: ServerResponse, raw: string): void {
    const request = JSON.parse(raw) as { input_file_id: string; endpoint: string; completion_window: string };
    const file = files.get(request.input_file_id);
    if (!file) return sendJson(res, 404, { error: { message: `no file ${request.input_file_id}`, type: 'invalid_request_error' } });
    const lines = file.bytes.toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { custom_id: string; body: ChatRequestBody });
    const number = batches.size + 1;
    const batch = { id: `batch_${number}`, number, status: 'validating', input_file_id: request.input_file_id, customIds: lines.map((l) => l.custom_id), polls: 0, lines, counts: { total: lines.length, completed: 0, failed: 0 }, created_at: Math.floor(Date.now() / 1000) };
    batches.set(batch.id, batch);
    sendJson(res, 200, batchJson(batch));
  }

  /** Each status request moves the batch on; at the end its lines are answered and its files written. */
  async function pollBatch(res: ServerResponse, id: string): Promise<void> {
    if (batchOptions.pollDelayMs) await new Promise((r) => setTimeout(r, batchOptions.pollDelayMs));
    const batch = batches.get(id);
    if (!batch) return sendJson(res, 404, { error: { message: `no batch ${id}`, type: 'invalid_request_error' } });
    const perState = batchOptions.pollsPerState ?? 1;
    batch.polls++;
    const order = ['validating', 'in_progress', 'finalizing', 'completed'];
    const step = Math.min(order.length - 1, Math.floor(batch.polls / perState));
    if (!['completed', 'expired'].includes(batch.status) && step === order.length - 1) {
      const share = batchOptions.expire?.(batch.number);
      const answeredCount = share === undefined ? batch.lines.length : Math.floor(batch.lines.length * share);
      const output: unknown[] = [];
      const errors: unknown[] = [];
      for (const [i, line] of batch.lines.entries()) {
        if (i >= answeredCount) {
          errors.push({ id: `batch_req_${batch.number}_${i}`, custom_id: line.custom_id, response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } });
          continue;
        }
        batchLines.push(line.custom_id);
        const occurrence = (lineSeen.get(line.custom_id) ?? 0) + 1;
        lineSeen.set(line.custom_id, occurrence);
        if (batchOptions.failLine?.(line.custom_id, occurrence)) {
          errors.push({ id: `batch_req_${batch.number}_${i}`, custom_id: line.custom_id, response: { status_code: 500, request_id: `req_${i}`, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error' } } }, error: null });
          continue;
        }
        output.push({ id: `batch_req_${batch.number}_${i}`, custom_id: line.custom_id, response: { status_code: 200, request_id: `req_${i}`, body: await completionBody(line.body) }, error: null });
      }
      const store = (lines: unknown[]) => {
        if (!lines.length) return undefined;
        const fileId = `file-${++fileCount}`;
        files.set(fileId, { bytes: Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'), filename: `${batch.id}.jsonl`, purpose: 'batch_output' });
        return fileId;
      };
      batch.output_file_id = store(output);
      batch.error_file_id = store(errors);
      batch.counts = { total: batch.lines.length, completed: output.length, failed: errors.length };
      batch.status = share === undefined ? 'completed' : 'expired';
    } else if (!['completed', 'expired'].includes(batch.status)) {
      batch.status = order[step]!;
    }
    sendJson(res, 200, batchJson(batch));
  }


  function embeddings(res: ServerResponse, raw: string): void {
    const request = JSON.parse(raw) as { model: string; input: string | string[]; encoding_format?: string };
    const texts = Array.isArray(request.input) ? request.input : [request.input];
    const vectors = embed(texts);
    sendJson(res, 200, {
      object: 'list',
      model: request.model,
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: request.encoding_format === 'base64' ? toBase64Float32(vector) : vector,
      })),
      usage: { prompt_tokens: texts.join('').length, total_tokens: texts.join('').length },
    });
  }

  const server = createServer((req, res) => {
    void (async () => {
      const bytes = await readBody(req);
      const path = (req.url ?? '/').split('?')[0]!;
      if (req.method === 'POST' && path === '/v1/files') {
        requests.push({ method: 'POST', path, headers: { ...req.headers }, body: '(multipart upload)' });
        return uploadFile(req, res, bytes);
      }
      const raw = bytes.toString('utf8');
      const record: RecordedRequest = { method: req.method ?? 'GET', path, headers: { ...req.headers }, body: raw ? safeJson(raw) : undefined };
      requests.push(record);
      if (options.requireKey !== undefined && req.headers.authorization !== `Bearer ${options.requireKey}`) {
        sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
        return;
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') return chat(req, res, raw, record);
      if (req.method === 'POST' && path === '/v1/completions') return textCompletion(req, res, raw, record);
      if (req.method === 'POST' && path === '/v1/embeddings') return embeddings(res, raw);
      if (req.method === 'POST' && path === '/v1/batches') return createBatch(res, raw);
      if (req.method === 'GET' && path === '/v1/batches') {
        return sendJson(res, 200, { object: 'list', data: [...batches.values()].reverse().map(batchJson), has_more: false, first_id: null, last_id: null });
      }
      const batchMatch = /^\/v1\/batches\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && batchMatch) return pollBatch(res, batchMatch[1]!);
      const fileMatch = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
      if (req.method === 'GET' && fileMatch) {
        const file = files.get(fileMatch[1]!);
        if (!file) return sendJson(res, 404, { error: { message: `no file ${fileMatch[1]}`, type: 'invalid_request_error' } });
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
        return void res.end(file.bytes);
      }
      if (req.method === 'GET' && path === '/v1/models') {
        return sendJson(res, 200, {
          object: 'list',
          data: (options.models ?? ['test-model']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'hisrag-test' })),
        });
      }
      sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error' } });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions'),
    completionRequests: () => requests.filter((r) => r.path === '/v1/completions'),
    get batches() {
      return [...batches.values()].map(({ id, number, status, input_file_id, customIds, polls }) => ({ id, number, status, input_file_id, customIds, polls }));
    },
    batchLines,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
