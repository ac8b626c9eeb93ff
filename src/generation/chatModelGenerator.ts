import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatMessage, ContentPart, PageImageRef } from '../prompting/types.js';
import { contentAsText, messageText, messageTokens, promptImages } from '../prompting/messageContent.js';
import { ImagePreparer } from './imagePreparation.js';
import { imagesRefused } from './imageTokens.js';
import { endpointLimiter } from '../endpoints/endpointConcurrency.js';
import { splitReasoning } from './reasoning.js';
import { responseCacheKey, type ResponseCache } from './responseCache.js';
import { ServiceUnavailableError } from '../errors.js';
import { EndpointHealth } from '../endpoints/endpointHealth.js';
import { EmptyCompletionError, GenerationError } from '../endpoints/generationError.js';
import { classifyFailure, describeFailure, withRetries, type RetryHooks, type RetryPolicy } from '../endpoints/retryPolicy.js';
import type { CallSettings, ChatTurnOptions, GenerateOptions, GenerationResult, Generator, TokenUsage } from './types.js';
import type { EndpointRateLimiter } from '../endpoints/rateLimit.js';
import { estimateTokens } from '../text/tokenCounter.js';
import { BatchPendingError, type BatchQueue } from './batchQueue.js';

export interface GeneratorStats {
  requests: number;
  retries: number;
  cacheHits: number;
  failures: number;
  /** Completions still empty after every retry, returned as empty answers. */
  emptyAnswers: number;
}

export interface ChatModelGeneratorOptions {
  /** Registry name recorded in manifests. */
  name: string;
  /** Model name as recorded in run manifests and reports. */
  model: string;
  /** Requests to the same endpoint share one concurrency bound. */
  endpoint: string;
  /**
   * Replicas of the model (several servers): each attempt goes to the one with the fewest requests in
   * flight among those not cooling down after a failure; `endpoint` then names the pool, whose health
   * opens (exit 3) only when every replica fails.
   */
  replicas?: { endpoint: string; chat: BaseChatModel }[];
  concurrency: number;
  policy: RetryPolicy;
  /**
   * Stop calling the endpoint once every request has failed (connection refused, DNS, timeouts,
   * 5xx) for this long, or three in a row were refused (401/403/404); default 30 s.
   */
  unavailableAfterMs?: number;
  cache?: ResponseCache;
  /** The endpoint's request and token pacing (shared per endpoint); every attempt waits for its slot. */
  rateLimiter?: EndpointRateLimiter;
  /** Completion tokens reserved before a call when pacing tokens (the request's `maxTokens`). */
  maxTokens?: number;
  /** Generation parameters that change answers; part of the cache key with model and messages. */
  cacheParams: Record<string, unknown>;
  /** Strings removed from any error message that may be recorded (API keys, header values). */
  secrets?: (string | undefined)[];
  hooks?: Pick<RetryHooks, 'sleep' | 'random' | 'onRetry'>;
  /** Manifest description; must not contain secrets. */
  describe: () => Record<string, unknown>;
  /**
   * Batch API mode (src/batch/): requests are answered from what the run's batches put into the
   * response cache; `body` gives the request a live call would send, as a batch input line's body.
   */
  batch?: { queue: BatchQueue; body: (messages: BaseMessage[], tools?: ChatTurnOptions['tools']) => Record<string, unknown> };
  /**
   * How page images are prepared (resized, encoded, cached by content) and counted for this model;
   * without it a prompt with image parts is refused before any call.
   */
  images?: { preparer: ImagePreparer; tokens: (image: PageImageRef) => number };
  /**
   * Requests that carry per-call settings (stop sequences, logprobs, a call's maxTokens) or continue a
   * text through the completions API, sent to one replica's endpoint as the protocol has them (see
   * openaiProtocol.ts); absent for a chat model without them. `batchBody` gives such a chat request as
   * a batch input line's body.
   */
  protocol?: {
    send(endpoint: string, request: ProtocolRequest, signal: AbortSignal | undefined): Promise<GenerationResult>;
    batchBody(request: ProtocolRequest & { kind: 'chat' }): Record<string, unknown>;
  };
}

/** A request of the protocol path: chat messages or a text to continue, with its per-call settings. */
export type ProtocolRequest = ({ kind: 'chat'; messages: ChatMessage[] } | { kind: 'completions'; prompt: string }) & { call: CallSettings };

/** True when a call sets anything beyond the plain request. */
const hasCallSettings = (call: CallSettings | undefined): call is CallSettings => Boolean(call && (call.stop?.length || call.logprobs || call.maxTokens !== undefined));

/** The settings as the cache key takes them (absent ones left out, so equal settings key equally). */
const callKeyOf = (call: CallSettings) => ({ ...(call.stop?.length ? { stop: call.stop } : {}), ...(call.logprobs ? { logprobs: true } : {}), ...(call.maxTokens !== undefined ? { callMaxTokens: call.maxTokens } : {}) });

/** One replica of a pool, with what routing needs to know of it. */
interface Replica {
  endpoint: string;
  chat: BaseChatModel;
  inFlight: number;
  failures: number;
  coolingUntil: number;
}

/** A message's content as LangChain takes it: text, or OpenAI content parts (`text`, `image_url`) in the message's order. */
type LangChainContent = string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];

export function toLangChainMessage(message: ChatMessage, imageUrl?: (image: PageImageRef) => string): BaseMessage {
  let content: LangChainContent;
  if (typeof message.content === 'string') content = message.content;
  else if (!message.content.some((part) => part.type === 'image')) content = contentAsText(message.content);
  else {
    if (!imageUrl) throw new Error('a message with image parts must be prepared for the model before it is sent');
    content = message.content.map((part) => (part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'image_url' as const, image_url: { url: imageUrl(part.image) } }));
  }
  if (message.role === 'system') return new SystemMessage({ content });
  if (message.role === 'assistant') return new AIMessage({ content });
  return new HumanMessage({ content });
}

/** What identifies one message of a conversation for the cache: role, text, tool calls (with ids), tool result id. */
function conversationEntry(message: BaseMessage): Record<string, unknown> {
  const ai = AIMessage.isInstance(message) ? message : undefined;
  const tool = ToolMessage.isInstance(message) ? message : undefined;
  return {
    role: message.getType(),
    content: contentText(message.content),
    ...(ai?.tool_calls?.length ? { toolCalls: ai.tool_calls.map(({ id, name, args }) => ({ id, name, args })) } : {}),
    ...(tool ? { toolCallId: tool.tool_call_id } : {}),
  };
}

/** The chat model with tools offered; a model that cannot bind tools is refused with its name. */
function bindToolsTo(chat: BaseChatModel, tools: ChatTurnOptions['tools']) {
  if (typeof chat.bindTools !== 'function') throw new Error(`chat model ${chat.getName()} cannot be offered tools`);
  return chat.bindTools(tools);
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

/**
 * A chat model's reply as a generation result: the answer with reasoning split off, tool calls,
 * usage. A reply with nothing at all (no answer, no reasoning, no tool call) is a transport-level
 * fault until proven otherwise (EmptyCompletionError, retried). Live replies and batch output lines
 * go through here alike.
 */
export function resultFromReply(reply: Pick<AIMessage, 'content' | 'additional_kwargs' | 'tool_calls' | 'usage_metadata'>): GenerationResult {
  const raw = contentText(reply.content);
  const reasoningContent = reply.additional_kwargs?.reasoning_content;
  const { text, reasoning } = splitReasoning(raw, typeof reasoningContent === 'string' ? reasoningContent : undefined);
  const toolCalls = (reply.tool_calls ?? []).map(({ id, name, args }) => ({ ...(id ? { id } : {}), name, args: args as Record<string, unknown> }));
  if (raw.trim() === '' && !reasoning && toolCalls.length === 0) throw new EmptyCompletionError();
  const usage: TokenUsage | undefined = reply.usage_metadata
    ? {
        promptTokens: reply.usage_metadata.input_tokens,
        completionTokens: reply.usage_metadata.output_tokens,
        totalTokens: reply.usage_metadata.total_tokens,
      }
    : undefined;
  return { text, raw, ...(reasoning ? { reasoning } : {}), ...(usage ? { usage } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
}

/**
 * Any LangChain chat model as a Generator, with hisrag's execution policy around it: the retry
 * policy (the model's own retries should be off), a concurrency bound per endpoint, and the
 * response cache. Reasoning (`reasoning_content`, `<think>` blocks) is split from the answer.
 */
export class ChatModelGenerator implements Generator {
  readonly name: string;
  readonly model: string;
  readonly stats: GeneratorStats = { requests: 0, retries: 0, cacheHits: 0, failures: 0, emptyAnswers: 0 };
  // True private fields (#): JSON.stringify or a dump of a generator cannot reach secrets.
  readonly #options: ChatModelGeneratorOptions;
  readonly #health: EndpointHealth;
  readonly #replicas: Replica[];

  constructor(chat: BaseChatModel, options: ChatModelGeneratorOptions) {
    this.#replicas = (options.replicas ?? [{ endpoint: options.endpoint, chat }]).map((r) => ({ ...r, inFlight: 0, failures: 0, coolingUntil: 0 }));
    this.#options = options;
    this.#health = new EndpointHealth(options.endpoint, { unavailableAfterMs: options.unavailableAfterMs ?? 30_000 });
    this.name = options.name;
    this.model = options.model;
    if (options.images) this.imageTokens = options.images.tokens;
  }

  #redact = (text: string): string => {
    let out = text;
    for (const secret of this.#options.secrets ?? []) if (secret && secret.length >= 4) out = out.split(secret).join('***');
    return out;
  };

  /**
   * The response cache key: model, messages, parameters. An image stands in it by the sha256 of its
   * source bytes and the preparation settings (`hashes` in prompt order; never its path), so a
   * changed scan is asked again and a moved folder is not; a text-only prompt's key is unchanged.
   * A repeated sample after the first (`sample` ≥ 1) adds its index to the parameters: sample 0 keeps
   * the key every cache and run already has.
   */
  cacheKey(messages: ChatMessage[], hashes: string[] = [], sample = 0): string {
    let next = 0;
    const part = (p: ContentPart) => (p.type === 'text' ? p : { type: 'image', sha256: hashes[next++], prepared: this.#options.images?.preparer.settingsKey });
    const hasImages = hashes.length > 0;
    return responseCacheKey({
      model: this.model,
      messages: messages.map(({ role, content }) => ({ role, content: typeof content === 'string' || !hasImages ? contentAsText(content) : content.map(part) })),
      params: this.#paramsFor(sample),
    });
  }

  #paramsFor(sample: number | undefined): Record<string, unknown> {
    return sample ? { ...this.#options.cacheParams, sample } : this.#options.cacheParams;
  }

  isCached(messages: ChatMessage[], options: Pick<GenerateOptions, 'sample'> = {}): boolean {
    const cache = this.#options.cache;
    if (!cache) return false;
    const images = promptImages(messages);
    if (images.length && !this.#options.images) return false;
    return Boolean(cache.get(this.cacheKey(messages, images.map((image) => this.#options.images!.preparer.sourceHashSync(image)), options.sample)));
  }

  /** Tokens of a page image for this model (its `images.tokens` formula on the prepared size); absent without image settings. */
  readonly imageTokens?: (image: PageImageRef) => number;

  /** The batch queue of a generator that can answer through a batch API (absent for one without a cache). */
  get batchQueue(): BatchQueue | undefined {
    return this.#options.batch?.queue;
  }

  async generate(messages: ChatMessage[], options: GenerateOptions = {}): Promise<GenerationResult> {
    const images = promptImages(messages);
    if (hasCallSettings(options.call) && this.#options.protocol) {
      if (images.length) throw new Error('a request with stop sequences or logprobs cannot carry page images');
      return this.#protocolCall({ kind: 'chat', messages, call: options.call }, options);
    }
    if (images.length) return this.#generateWithImages(messages, images, options);
    const key = this.#options.cache ? this.cacheKey(messages, [], options.sample) : undefined;
    const tokens = messages.reduce((n, m) => n + estimateTokens(messageText(m)), 0);
    const conversation = messages.map((m) => toLangChainMessage(m));
    return this.#withPolicy(key, options, (signal, { chat }) => this.#request(chat, conversation, signal), tokens, () => this.#options.batch!.body(conversation));
  }

  /** Continues `prompt` through the completions API (`/v1/completions`), under the same policy; absent for a model without it. */
  get complete(): ((prompt: string, options?: GenerateOptions) => Promise<GenerationResult>) | undefined {
    if (!this.#options.protocol) return undefined;
    return (prompt, options = {}) => this.#protocolCall({ kind: 'completions', prompt, call: options.call ?? {} }, options);
  }

  /**
   * A request with per-call settings, or a completion: keyed by what it sends (the settings and the
   * API included, so a stop-sequence call never answers a plain one), under the same policy. A chat
   * request may go into a batch; a completion is always live (the Batch API here takes chat requests).
   */
  #protocolCall(request: ProtocolRequest, options: GenerateOptions): Promise<GenerationResult> {
    const protocol = this.#options.protocol!;
    const params = { ...this.#paramsFor(options.sample), ...callKeyOf(request.call) };
    const key = !this.#options.cache
      ? undefined
      : request.kind === 'chat'
        ? responseCacheKey({ model: this.model, messages: request.messages.map(({ role, content }) => ({ role, content: contentAsText(content) })), params })
        : responseCacheKey({ model: this.model, messages: { completionsPrompt: request.prompt }, params });
    const tokens = request.kind === 'chat' ? request.messages.reduce((n, m) => n + estimateTokens(messageText(m)), 0) : estimateTokens(request.prompt);
    const batchBody = request.kind === 'chat' ? () => protocol.batchBody(request) : undefined;
    return this.#withPolicy(key, options, (signal, replica) => {
      this.stats.requests++;
      return protocol.send(replica.endpoint, request, signal);
    }, tokens, batchBody);
  }

  /**
   * A prompt with page images: refused at once without image settings; otherwise keyed by the
   * images' content, prepared (only when the answer is not already cached) and sent as `image_url`
   * parts with data URLs, in the message's order. Pacing counts the images' tokens.
   */
  async #generateWithImages(messages: ChatMessage[], images: PageImageRef[], options: GenerateOptions): Promise<GenerationResult> {
    const settings = this.#options.images;
    if (!settings) throw imagesRefused(this, images.length);
    const identified = await Promise.all(images.map((image) => settings.preparer.identify(image)));
    const cache = this.#options.cache;
    const key = cache ? this.cacheKey(messages, identified.map((i) => i.hash), options.sample) : undefined;
    const tokens = messages.reduce((n, m) => n + messageTokens(m, estimateTokens, settings.tokens), 0);
    // A cached answer needs no prepared image (the policy answers it from the cache before any request).
    const answered = key !== undefined && options.cache !== 'refresh' && cache!.has(key);
    let conversation: BaseMessage[] = [];
    if (!answered) {
      const prepared = await Promise.all(images.map((image, i) => settings.preparer.prepare(image, identified[i])));
      const urls = new Map(images.map((image, i) => [image, ImagePreparer.dataUrl(prepared[i]!)]));
      conversation = messages.map((m) => toLangChainMessage(m, (image) => urls.get(image)!));
    }
    return this.#withPolicy(key, options, (signal, { chat }) => this.#request(chat, conversation, signal), tokens, () => this.#options.batch!.body(conversation));
  }

  /**
   * One turn of a tool-calling conversation (the agent method's model calls): the messages so far,
   * tool calls and results included, with `tools` offered in OpenAI's function format. Runs under
   * the same policy as `generate` — cache (keyed by the whole conversation and the tools, so a
   * cached conversation replays without calling the endpoint), per-endpoint concurrency, retries
   * and the endpoint's health.
   */
  async chatTurn(messages: BaseMessage[], options: ChatTurnOptions): Promise<GenerationResult> {
    const key = this.#options.cache
      ? responseCacheKey({ model: this.model, messages: messages.map(conversationEntry), params: { ...this.#paramsFor(options.sample), tools: options.tools } })
      : undefined;
    const tokens = messages.reduce((n, m) => n + estimateTokens(contentText(m.content)), 0);
    return this.#withPolicy(key, options, (signal, { chat }) => this.#request(chat, messages, signal, options.tools), tokens, () => this.#options.batch!.body(messages, options.tools));
  }

  /** The execution policy every request runs under: cache, endpoint concurrency, retries, endpoint health. */
  /**
   * The replica for the next attempt: the fewest in flight among those not cooling down after a
   * failure (ties to the first listed); when all are cooling down, the one that is back soonest.
   */
  #pickReplica(): Replica {
    const now = Date.now();
    const ready = this.#replicas.filter((r) => r.coolingUntil <= now);
    const pool = ready.length ? ready : [...this.#replicas].sort((a, b) => a.coolingUntil - b.coolingUntil).slice(0, 1);
    return pool.reduce((best, r) => (r.inFlight < best.inFlight ? r : best));
  }

  async #withPolicy(
    key: string | undefined,
    options: GenerateOptions,
    request: (signal: AbortSignal | undefined, replica: Replica) => Promise<GenerationResult>,
    promptTokens = 0,
    batchBody?: () => Record<string, unknown>,
  ): Promise<GenerationResult> {
    const cache = this.#options.cache;
    const queue = this.#options.batch?.queue;
    if (queue && key && batchBody && (queue.enabled || queue.mode === 'collect')) {
      // Batch mode: answers come from the run's batches (through the cache); a live call only with `fallback: live`.
      const served = queue.serve(key, options.cache === 'refresh', () => ({ custom_id: key, method: 'POST', url: '/v1/chat/completions', body: batchBody() }));
      if (served.kind === 'answer') {
        if (served.result.cached) this.stats.cacheHits++;
        return served.result;
      }
      if (served.kind === 'pending') throw new BatchPendingError();
      if (served.kind === 'failed') {
        const times = `${served.submissions} batch submission${served.submissions === 1 ? '' : 's'}`;
        if (served.failure.empty) {
          this.stats.emptyAnswers++;
          return { text: '', raw: '', emptyAfterAttempts: Math.max(1, served.submissions) };
        }
        this.stats.failures++;
        throw new GenerationError(`batch: no answer after ${times}: ${served.failure.message}`, { reason: 'batch-failed', attempts: served.submissions });
      }
    }
    // A call the Batch API cannot take (a completion) goes live in a batch run, in the round that
    // first asks it; the item's later rounds replay it from the cache, and it was still paid for.
    const liveInBatchRun = queue !== undefined && key !== undefined && !batchBody && (queue.enabled || queue.mode === 'collect');
    if (cache && key && options.cache !== 'refresh') {
      const hit = cache.get(key);
      if (hit) {
        if (liveInBatchRun && queue.answeredLive.has(key)) return { ...hit, cached: false };
        this.stats.cacheHits++;
        return hit;
      }
    }
    const limit = endpointLimiter(this.#options.endpoint, this.#options.concurrency);
    const hooks = this.#options.hooks ?? {};
    const health = this.#health;
    const pacing = this.#options.rateLimiter;
    // What this call met at the endpoint's rate limit: 429s received and time spent waiting for a slot.
    let rateLimited = 0;
    let waitedMs = 0;
    // Every attempt reports to the endpoint's health: an endpoint that fails every request for a
    // while stops the run instead of burning each item's retries.
    const attempt = async () => {
      health.assertAvailable();
      const reservation = pacing ? await pacing.acquire(promptTokens + (this.#options.maxTokens ?? 0), options.signal) : undefined;
      if (reservation) waitedMs += reservation.waitedMs;
      const replica = this.#pickReplica();
      replica.inFlight++;
      try {
        const result = await request(options.signal, replica);
        replica.failures = 0;
        replica.coolingUntil = 0;
        health.recordAnswer();
        if (reservation) pacing!.settle(reservation, result.usage?.totalTokens ?? (result.usage ? (result.usage.promptTokens ?? 0) + (result.usage.completionTokens ?? 0) : undefined));
        return result;
      } catch (error) {
        const failure = classifyFailure(error);
        if (failure.reason === 'rate-limited') rateLimited++;
        // A replica that is not serving (refused connection, timeout, 5xx) is drained for a while, longer each time.
        if (this.#replicas.length > 1 && (failure.reason === 'connection' || failure.reason === 'timeout' || (failure.reason === 'server-error' && (failure.status ?? 0) >= 500))) {
          replica.failures++;
          replica.coolingUntil = Date.now() + Math.min(30_000, 500 * 2 ** (replica.failures - 1));
        }
        if (error instanceof EmptyCompletionError) health.recordAnswer();
        else health.recordFailure(classifyFailure(error), this.#redact(describeFailure(error)));
        // The failure that shows the endpoint is down stops this item too (no more retries).
        health.assertAvailable();
        throw error;
      } finally {
        replica.inFlight--;
      }
    };
    try {
      const result = await limit(() =>
        withRetries(attempt, this.#options.policy, options.signal, {
          sleep: hooks.sleep,
          random: hooks.random,
          redact: this.#redact,
          onRetry: (info) => {
            this.stats.retries++;
            hooks.onRetry?.(info);
          },
        }),
      );
      if (cache && key) cache.put(key, this.model, result);
      if (liveInBatchRun) queue.answeredLive.add(key);
      return rateLimited || waitedMs >= 1 ? { ...result, rateLimit: { rateLimited, waitedMs: Math.round(waitedMs) } } : result;
    } catch (error) {
      if (error instanceof GenerationError && error.reason === 'empty-completion') {
        // Still empty after the retries: the model's answer is empty. The benchmark's rule scores
        // it (0) and the run counts it; it is not cached, so a re-run asks again.
        this.stats.emptyAnswers++;
        return { text: '', raw: '', emptyAfterAttempts: error.attempts, ...(rateLimited || waitedMs >= 1 ? { rateLimit: { rateLimited, waitedMs: Math.round(waitedMs) } } : {}) };
      }
      this.stats.failures++;
      if (error instanceof GenerationError && error.reason === 'endpoint-unavailable') {
        throw new ServiceUnavailableError(error.message.replace(/^endpoint-unavailable: /, ''));
      }
      throw error;
    }
  }

  async #request(chat: BaseChatModel, messages: BaseMessage[], outer?: AbortSignal, tools?: ChatTurnOptions['tools']): Promise<GenerationResult> {
    this.stats.requests++;
    // A signal of its own per request: the client adds listeners to the signal it is given and
    // does not always remove them, so the run-wide signal gets exactly one, removed afterwards.
    const controller = new AbortController();
    const forward = () => controller.abort(outer!.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    let reply;
    try {
      const model = tools?.length ? bindToolsTo(chat, tools) : chat;
      reply = await model.invoke(messages, { signal: controller.signal });
    } finally {
      outer?.removeEventListener('abort', forward);
    }
    return resultFromReply(reply);
  }

  describe(): Record<string, unknown> {
    return this.#options.describe();
  }
}
