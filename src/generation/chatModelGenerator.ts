import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatMessage, ContentPart, PageImageRef } from '../prompting/types.js';
import { contentAsText, messageText, messageTokens, promptImages } from '../prompting/messageContent.js';
import { ImagePreparer } from './imagePreparation.js';
import { imagesRefused } from './imageTokens.js';
import { responseCacheKey, type ResponseCache } from './responseCache.js';
import { EndpointHealth } from '../endpoints/endpointHealth.js';
import { healthChecked, underRetries, type RetryHooks, type RetryPolicy } from '../endpoints/retryPolicy.js';
import type { CallSettings, ChatTurnOptions, GenerateOptions, GenerationResult, Generator, GeneratorDescription } from './types.js';
import type { EndpointRateLimiter } from '../endpoints/rateLimit.js';
import { estimateTokens } from '../text/tokenCounter.js';
import type { BatchQueue } from './batchQueue.js';
import { batchServing, callOutcome, paced, responseCaching, type Call, type CallLayer, type GeneratorStats, type ReplicaTarget } from './callLayers.js';
import { contentText, conversationEntry, invokeChat, toLangChainMessage } from './langchainMessages.js';
import { replicaRouting } from './replicaRouting.js';

export interface ChatModelGeneratorOptions {
  /** Registry name recorded in manifests. */
  name: string;
  /** Model name as recorded in run manifests and reports. */
  model: string;
  /** Requests to the same endpoint share one concurrency bound. */
  endpoint: string;
  /** Replicas of the model (see replicaRouting.ts); `endpoint` then names the pool, down only when every replica is. */
  replicas?: { endpoint: string; chat: BaseChatModel }[];
  concurrency: number;
  policy: RetryPolicy;
  /** Stop calling an endpoint that has failed every request this long (default 30 s). */
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
  describe: () => GeneratorDescription;
  /** Batch API mode (src/batch/); `body`: the request a live call would send, as a batch input line's body. */
  batch?: { queue: BatchQueue; body: (messages: BaseMessage[], tools?: ChatTurnOptions['tools']) => Record<string, unknown> };
  /** How page images are prepared and counted for this model; without it an image prompt is refused. */
  images?: { preparer: ImagePreparer; tokens: (image: PageImageRef) => number };
  /** Sends requests with per-call settings, and completions (openaiProtocol.ts); absent for a chat model without them. */
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

/**
 * Any LangChain chat model as a Generator, under hisrag's execution policy as a stack of layers
 * (callLayers.ts; the model's own retries should be off). Reasoning is split from the answer.
 */
export class ChatModelGenerator implements Generator {
  readonly name: string;
  readonly model: string;
  readonly stats: GeneratorStats = { requests: 0, retries: 0, cacheHits: 0, failures: 0, emptyAnswers: 0 };
  // True private fields (#): JSON.stringify or a dump of a generator cannot reach secrets.
  readonly #options: ChatModelGeneratorOptions;
  /** The request layers, composed once: see callLayers.ts. */
  readonly #call: CallLayer;

  constructor(chat: BaseChatModel, options: ChatModelGeneratorOptions) {
    this.#options = options;
    this.name = options.name;
    this.model = options.model;
    if (options.images) this.imageTokens = options.images.tokens;
    const { cache, batch, rateLimiter, maxTokens, policy, hooks = {} } = options;
    const health = new EndpointHealth(options.endpoint, { unavailableAfterMs: options.unavailableAfterMs ?? 30_000 });
    const replicas: ReplicaTarget[] = options.replicas ?? [{ endpoint: options.endpoint, chat }];
    const endpoint = { label: options.endpoint, concurrency: options.concurrency };
    // Outermost first: batch → outcome → cache → concurrency and retries → health → pacing → replica.
    const attempt = healthChecked(health, this.#redact, paced(rateLimiter, maxTokens, replicaRouting(replicas)));
    const retried: CallLayer = (call) => underRetries(endpoint, policy, { ...hooks, redact: this.#redact }, this.stats, call.options.signal, () => attempt(call));
    const live = responseCaching(cache, this.model, this.stats, retried);
    this.#call = batchServing(batch?.queue, cache, this.stats, callOutcome(this.stats, live));
  }

  #redact = (text: string): string => {
    let out = text;
    for (const secret of this.#options.secrets ?? []) if (secret && secret.length >= 4) out = out.split(secret).join('***');
    return out;
  };

  /**
   * The response cache key: model, messages, parameters. An image stands in it by its source bytes'
   * sha256 and the preparation settings (never its path: a moved folder is no new request). A sample
   * after the first adds its index: sample 0 keeps the key every cache already has.
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
    return this.#run(key, options, this.#chatSend(conversation), tokens, () => this.#options.batch!.body(conversation));
  }

  /** Continues `prompt` through the completions API (`/v1/completions`), under the same policy; absent for a model without it. */
  get complete(): ((prompt: string, options?: GenerateOptions) => Promise<GenerationResult>) | undefined {
    if (!this.#options.protocol) return undefined;
    return (prompt, options = {}) => this.#protocolCall({ kind: 'completions', prompt, call: options.call ?? {} }, options);
  }

  /**
   * A request with per-call settings, or a completion, keyed by what it sends (a stop-sequence call
   * never answers a plain one). A completion is always live: the Batch API here takes chat requests.
   */
  #protocolCall(request: ProtocolRequest, options: GenerateOptions): Promise<GenerationResult> {
    const protocol = this.#options.protocol!;
    const params = { ...this.#paramsFor(options.sample), ...callKeyOf(request.call) };
    const messages = request.kind === 'chat' ? request.messages.map(({ role, content }) => ({ role, content: contentAsText(content) })) : { completionsPrompt: request.prompt };
    const key = this.#options.cache ? responseCacheKey({ model: this.model, messages, params }) : undefined;
    const tokens = request.kind === 'chat' ? request.messages.reduce((n, m) => n + estimateTokens(messageText(m)), 0) : estimateTokens(request.prompt);
    const batchBody = request.kind === 'chat' ? () => protocol.batchBody(request) : undefined;
    return this.#run(key, options, (signal, replica) => {
      this.stats.requests++;
      return protocol.send(replica.endpoint, request, signal);
    }, tokens, batchBody);
  }

  /** A prompt with page images: keyed by their content, prepared only when not cached, sent as data URLs. */
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
    return this.#run(key, options, this.#chatSend(conversation), tokens, () => this.#options.batch!.body(conversation));
  }

  /** One turn of a tool-calling conversation (the agent), keyed by the whole conversation and the tools. */
  async chatTurn(messages: BaseMessage[], options: ChatTurnOptions): Promise<GenerationResult> {
    const key = this.#options.cache
      ? responseCacheKey({ model: this.model, messages: messages.map(conversationEntry), params: { ...this.#paramsFor(options.sample), tools: options.tools } })
      : undefined;
    const tokens = messages.reduce((n, m) => n + estimateTokens(contentText(m.content)), 0);
    return this.#run(key, options, this.#chatSend(messages, options.tools), tokens, () => this.#options.batch!.body(messages, options.tools));
  }

  /** Runs one request through the layers. */
  #run(key: string | undefined, options: GenerateOptions, send: Call['send'], promptTokens: number, batchBody?: () => Record<string, unknown>): Promise<GenerationResult> {
    return this.#call({ key, options, send, promptTokens, ...(batchBody ? { batchBody } : {}), meter: { rateLimited: 0, waitedMs: 0 } });
  }

  /** One LangChain chat call, counted. */
  #chatSend(messages: BaseMessage[], tools?: ChatTurnOptions['tools']): Call['send'] {
    return (signal, { chat }) => {
      this.stats.requests++;
      return invokeChat(chat, messages, signal, tools);
    };
  }

  describe(): GeneratorDescription {
    return this.#options.describe();
  }
}
