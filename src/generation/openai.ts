import type { BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI, ChatOpenAICompletions, convertCompletionsMessageToBaseMessage, convertMessagesToCompletionsMessageParams, type ChatOpenAIFields } from '@langchain/openai';
import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { ChatModelGenerator } from './chatModelGenerator.js';
import { resultFromReply } from './langchainMessages.js';
import { MalformedResponseError } from '../endpoints/generationError.js';
import { BatchQueue, BatchSettingsSchema } from './batchQueue.js';
import { BatchClient } from '../endpoints/batchClient.js';
import type { ChatMessage } from '../prompting/types.js';
import type { ChatTurnOptions, GenerateOptions, GenerationResult, ToolDefinition } from './types.js';
import { openResponseCache } from './responseCache.js';
import type { RetryHooks } from '../endpoints/retryPolicy.js';
import { retryPolicyOf } from './callLayers.js';
import type { Generator } from './types.js';
import { validatingFetch } from '../endpoints/validatingFetch.js';
import { endpointRateLimiter, rateObservingFetch } from '../endpoints/rateLimit.js';
import { imageTokensOf } from './imageTokens.js';
import { imagePreparer } from './imagePreparation.js';
import { protocolSender } from './openaiProtocol.js';
import { seedConflict, type OpenAIParams } from './openaiSchema.js';

export { OpenAIParamsFields, OpenAIParamsSchema, type OpenAIParams } from './openaiSchema.js';

/**
 * The response cache of a model in batch mode whose spec names no `cache:` (its batches' results are
 * loaded into one, keyed by custom_id): beside the project's other caches, one file per model, so a
 * resumed run finds what its batches returned.
 */
export function defaultBatchCache(model: string): string {
  return resolve('.cache', `responses-${model.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'model'}.sqlite`);
}

const ChatCompletionSchema = z.looseObject({
  model: z.string().optional().describe('Model name sent to the endpoint'),
  choices: z.array(z.looseObject({ message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable().optional() }) })).min(1),
  usage: z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }).optional(),
});

/**
 * A chat completion's JSON (a Batch API output line's `response.body`) as a generation result, read
 * by LangChain's own converter so it equals what a live call gives; throws on an empty or malformed one.
 */
export function parseChatCompletion(body: unknown): GenerationResult {
  const parsed = ChatCompletionSchema.safeParse(body);
  if (!parsed.success) throw new MalformedResponseError(`not a chat completion: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const completion = parsed.data;
  const reply = convertCompletionsMessageToBaseMessage({ message: completion.choices[0]!.message as never, rawResponse: completion as never });
  const usage = completion.usage;
  // A batch line of a call with logprobs or stop sequences carries them as a live call's protocol path reads them.
  const choice = completion.choices[0] as { finish_reason?: string | null; logprobs?: { content?: { token: string; logprob: number }[] | null } | null };
  const logprobs = choice.logprobs?.content?.map(({ token, logprob }) => ({ token, logprob }));
  const extra = { ...(logprobs ? { logprobs } : {}), ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}) };
  const result = resultFromReply({
    content: reply.content,
    additional_kwargs: reply.additional_kwargs,
    tool_calls: 'tool_calls' in reply ? (reply as { tool_calls?: [] }).tool_calls : [],
    usage_metadata: usage ? { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, total_tokens: usage.total_tokens } : undefined,
  });
  return { ...result, ...extra };
}

/** Test seams and run-time hooks that are not config. */
export interface OpenAIGeneratorOptions extends Pick<RetryHooks, 'sleep' | 'random' | 'onRetry'> {
  /** Environment to read the key from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * The sample index (`options.sample`) of the call in progress, for the request bodies built under
 * it: the shared policy (ChatModelGenerator) passes request builders no sample, and LangChain builds
 * the body deep inside `invoke`. Every entry point of OpenAIGenerator sets it.
 */
const callSample = new AsyncLocalStorage<number>();

/**
 * ChatOpenAI's chat-completions half with the call's seed in every body it builds: live and streamed
 * requests, and the batch body (built from the same `invocationParams`). Handed to ChatOpenAI as its
 * `completions`, which it also reuses for the models `bindTools` derives (tool-calling turns).
 */
class SeededCompletions extends ChatOpenAICompletions {
  readonly #seed: () => number | undefined;

  constructor(fields: ChatOpenAIFields, seed: () => number | undefined) {
    super(fields);
    this.#seed = seed;
  }

  override invocationParams(options?: this['ParsedCallOptions'], extra?: { streaming?: boolean }) {
    const params = super.invocationParams(options, extra);
    const seed = this.#seed();
    return seed === undefined ? params : { ...params, seed };
  }
}

// Sent when no key is configured: the SDK insists on one, and a keyless server ignores it.
// Never falling back to OPENAI_API_KEY keeps a real key from reaching an arbitrary server.
const NO_KEY = 'no-key';

/** The key named by `apiKeyEnv`, or a ConfigError naming the variable. */
function apiKeyFrom(params: OpenAIParams, env: NodeJS.ProcessEnv): string | undefined {
  if (params.apiKeyEnv === undefined) return undefined;
  const key = env[params.apiKeyEnv];
  if (!key) {
    throw new ConfigError(
      `generator "${params.model}": environment variable ${params.apiKeyEnv} (apiKeyEnv) is not set; export it with the API key, or remove apiKeyEnv for a server that needs no key`,
    );
  }
  return key;
}

/**
 * Any OpenAI-compatible chat endpoint through LangChain's ChatOpenAI. The retry policy is
 * hisrag's own (ChatOpenAI's retries are off), requests to one endpoint share a concurrency
 * bound, and successful responses may be cached on disk.
 *
 * An empty completion (HTTP 200, no text) is retried like a 5xx; one still empty after the
 * retries is returned as an empty answer (`emptyAfterAttempts`), which the benchmark rules score
 * 0 and runs count, and is not cached. A response that is not a chat completion at all is a
 * `malformed-response` failure (retried, then thrown). An endpoint that fails every request for
 * `unavailableAfterMs` stops the run (ServiceUnavailableError). Failures are never cached.
 */
export class OpenAIGenerator extends ChatModelGenerator {
  constructor(params: OpenAIParams, options: OpenAIGeneratorOptions = {}) {
    const apiKey = apiKeyFrom(params, options.env ?? process.env);
    // Checked here too: schemas built from OpenAIParamsFields (the claim extractor's) lack the schema's check.
    const conflict = seedConflict(params);
    if (conflict) throw new ConfigError(`generator "${params.model}": ${conflict}`);
    const seed = params.seed;
    // The seed the call in progress sends: sample 0 the configured seed itself.
    const seedOfCall = seed === undefined ? () => undefined : () => seed + (callSample.getStore() ?? 0);
    const urls = Array.isArray(params.baseURL) ? params.baseURL : [params.baseURL];
    // One pool is one endpoint for pacing and concurrency: its replicas share the allowance, each holds `concurrency` in flight.
    const endpoint = urls.join(' | ');
    const rateLimiter = endpointRateLimiter(endpoint, params.rateLimit ?? {});
    const chatFor = (baseURL: string) => {
      const fields: ChatOpenAIFields = {
        model: params.model,
        temperature: params.temperature,
        maxTokens: params.maxTokens,
        apiKey: apiKey ?? NO_KEY,
        timeout: params.timeoutMs,
        maxRetries: 0,
        modelKwargs: params.extraBody,
        configuration: { baseURL, defaultHeaders: params.headers, fetch: validatingFetch(rateObservingFetch(rateLimiter)) },
      };
      return new ChatOpenAI({ ...fields, completions: new SeededCompletions(fields, seedOfCall) });
    };
    const replicas = urls.map((url) => ({ endpoint: url, chat: chatFor(url) }));
    const { headers, apiKeyEnv, batch = false, images, ...recorded } = params;
    const preparer = images ? imagePreparer(images) : undefined;
    const chosenCache = !params.cache && batch !== false ? defaultBatchCache(params.model) : undefined;
    const cachePath = params.cache ?? chosenCache;
    const cache = cachePath ? openResponseCache(cachePath) : undefined;
    // Every generator with a cache has a batch queue: `batch` turns it on for runs; `hisrag batch export` drives it either way.
    const queue = cache
      ? new BatchQueue(
          params.model,
          endpoint,
          () => new BatchClient({ baseURL: urls[0]!, ...(apiKey ? { apiKey } : {}), headers }),
          cache,
          { ...BatchSettingsSchema.parse(typeof batch === 'object' ? batch : {}), fallback: params.batchFallback ?? 'resubmit' },
          parseChatCompletion,
          batch !== false,
          chosenCache !== undefined,
        )
      : undefined;
    const first = replicas[0]!.chat;
    // The body a live call sends (ChatOpenAI's own request parameters), as a batch input line's body.
    const batchBody = (messages: BaseMessage[], tools?: ToolDefinition[]) => ({
      ...first.invocationParams((tools?.length ? { tools } : {}) as never),
      messages: convertMessagesToCompletionsMessageParams({ messages, model: params.model }),
    });
    super(replicas[0]!.chat, {
      name: 'openai',
      model: params.model,
      endpoint,
      ...(replicas.length > 1 ? { replicas } : {}),
      concurrency: params.concurrency * urls.length,
      rateLimiter,
      maxTokens: params.maxTokens,
      policy: retryPolicyOf(params),
      unavailableAfterMs: params.unavailableAfterMs,
      cache,
      ...(queue ? { batch: { queue, body: batchBody } } : {}),
      // The seed only when set: an unseeded model keeps the keys its caches already hold; a seeded one
      // never reuses answers cached unseeded or under another seed (the sample index is added apart).
      cacheParams: { temperature: params.temperature, maxTokens: params.maxTokens, extraBody: params.extraBody, ...(seed !== undefined ? { seed } : {}) },
      protocol: protocolSender({ ...params, seed: seedOfCall, apiKey: apiKey ?? NO_KEY, fetch: rateObservingFetch(rateLimiter) }),
      ...(images && preparer ? { images: { preparer, tokens: (image) => imageTokensOf(image, images) } } : {}),
      secrets: [apiKey, ...Object.values(headers)],
      hooks: { sleep: options.sleep, random: options.random, onRetry: options.onRetry },
      // For run manifests: the variable's name, header names; never the key or header values.
      describe: () => ({
        name: 'openai',
        ...recorded,
        ...(apiKeyEnv ? { apiKeyEnv } : {}),
        headers: Object.keys(headers),
        ...(seed !== undefined ? { seeding: `every request of sample i sends seed ${seed} + i (sample 0: ${seed}, sample 1: ${seed + 1}, …)` } : {}),
        ...(images && preparer ? { images: { ...images, cache: preparer.cacheFile } } : {}),
        ...(batch !== false ? { batch: true, ...(typeof batch === 'object' ? { batchSettings: batch } : {}) } : {}),
        // The cache batch mode chose (no `cache:` given), named in the manifest so a reader finds the batches' results.
        ...(chosenCache ? { cache: chosenCache, cacheChosen: 'batch mode without cache: (the default, .cache/responses-<model>.sqlite)' } : {}),
      }),
    });
  }

  // Each entry point runs the call under its sample index, for the seed its request bodies carry.
  override generate(messages: ChatMessage[], options: GenerateOptions = {}): Promise<GenerationResult> {
    return callSample.run(options.sample ?? 0, () => super.generate(messages, options));
  }

  override chatTurn(messages: BaseMessage[], options: ChatTurnOptions): Promise<GenerationResult> {
    return callSample.run(options.sample ?? 0, () => super.chatTurn(messages, options));
  }

  override get complete(): ((prompt: string, options?: GenerateOptions) => Promise<GenerationResult>) | undefined {
    const complete = super.complete;
    return complete && ((prompt, options = {}) => callSample.run(options.sample ?? 0, () => complete(prompt, options)));
  }
}

export const createOpenAI = (params: OpenAIParams): Generator => new OpenAIGenerator(params);
