import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatMessage } from '../prompting/types.js';
import { endpointLimiter } from './endpointConcurrency.js';
import { splitReasoning } from './reasoning.js';
import { responseCacheKey, type ResponseCache } from './responseCache.js';
import { withRetries, type RetryHooks, type RetryPolicy } from './retryPolicy.js';
import type { GenerateOptions, GenerationResult, Generator, TokenUsage } from './types.js';

export interface GeneratorStats {
  requests: number;
  retries: number;
  cacheHits: number;
  failures: number;
}

export interface ChatModelGeneratorOptions {
  /** Registry name recorded in manifests. */
  name: string;
  /** Model name as recorded in run manifests and reports. */
  model: string;
  /** Requests to the same endpoint share one concurrency bound. */
  endpoint: string;
  concurrency: number;
  policy: RetryPolicy;
  cache?: ResponseCache;
  /** Generation parameters that change answers; part of the cache key with model and messages. */
  cacheParams: Record<string, unknown>;
  /** Strings removed from any error message that may be recorded (API keys, header values). */
  secrets?: (string | undefined)[];
  hooks?: Pick<RetryHooks, 'sleep' | 'random' | 'onRetry'>;
  /** Manifest description; must not contain secrets. */
  describe: () => Record<string, unknown>;
}

export function toLangChainMessage(message: ChatMessage): BaseMessage {
  if (message.role === 'system') return new SystemMessage(message.content);
  if (message.role === 'assistant') return new AIMessage(message.content);
  return new HumanMessage(message.content);
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

/**
 * Any LangChain chat model as a Generator, with hisrag's execution policy around it: the retry
 * policy (the model's own retries should be off), a concurrency bound per endpoint, and the
 * response cache. Reasoning (`reasoning_content`, `<think>` blocks) is split from the answer.
 */
export class ChatModelGenerator implements Generator {
  readonly name: string;
  readonly model: string;
  readonly stats: GeneratorStats = { requests: 0, retries: 0, cacheHits: 0, failures: 0 };
  // True private fields (#): JSON.stringify or a dump of a generator cannot reach secrets.
  readonly #chat: BaseChatModel;
  readonly #options: ChatModelGeneratorOptions;

  constructor(chat: BaseChatModel, options: ChatModelGeneratorOptions) {
    this.#chat = chat;
    this.#options = options;
    this.name = options.name;
    this.model = options.model;
  }

  #redact = (text: string): string => {
    let out = text;
    for (const secret of this.#options.secrets ?? []) if (secret && secret.length >= 4) out = out.split(secret).join('***');
    return out;
  };

  cacheKey(messages: ChatMessage[]): string {
    return responseCacheKey({
      model: this.model,
      messages: messages.map(({ role, content }) => ({ role, content })),
      params: this.#options.cacheParams,
    });
  }

  async generate(messages: ChatMessage[], options: GenerateOptions = {}): Promise<GenerationResult> {
    const cache = this.#options.cache;
    const key = cache ? this.cacheKey(messages) : undefined;
    if (cache && key && options.cache !== 'refresh') {
      const hit = cache.get(key);
      if (hit) {
        this.stats.cacheHits++;
        return hit;
      }
    }
    const limit = endpointLimiter(this.#options.endpoint, this.#options.concurrency);
    const hooks = this.#options.hooks ?? {};
    try {
      const result = await limit(() =>
        withRetries(() => this.#request(messages, options.signal), this.#options.policy, options.signal, {
          sleep: hooks.sleep,
          random: hooks.random,
          redact: this.#redact,
          onRetry: (info) => {
            this.stats.retries++;
            hooks.onRetry?.(info);
          },
        }),
      );
      // Empty completions are answers (scored 0) but not cached: a re-run asks again.
      if (cache && key && result.raw.trim() !== '') cache.put(key, this.model, result);
      return result;
    } catch (error) {
      this.stats.failures++;
      throw error;
    }
  }

  async #request(messages: ChatMessage[], signal?: AbortSignal): Promise<GenerationResult> {
    this.stats.requests++;
    const reply = await this.#chat.invoke(messages.map(toLangChainMessage), { signal });
    const raw = contentText(reply.content);
    const reasoningContent = reply.additional_kwargs?.reasoning_content;
    const { text, reasoning } = splitReasoning(raw, typeof reasoningContent === 'string' ? reasoningContent : undefined);
    const usage: TokenUsage | undefined = reply.usage_metadata
      ? {
          promptTokens: reply.usage_metadata.input_tokens,
          completionTokens: reply.usage_metadata.output_tokens,
          totalTokens: reply.usage_metadata.total_tokens,
        }
      : undefined;
    return { text, raw, ...(reasoning ? { reasoning } : {}), ...(usage ? { usage } : {}) };
  }

  describe(): Record<string, unknown> {
    return this.#options.describe();
  }
}
