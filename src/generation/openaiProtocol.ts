import OpenAI from 'openai';
import { z } from 'zod';
import { parseWith } from '../errors.js';
import { contentAsText } from '../prompting/messageContent.js';
import type { ProtocolRequest } from './chatModelGenerator.js';
import { EmptyCompletionError, MalformedResponseError } from '../endpoints/generationError.js';
import { splitReasoning } from './reasoning.js';
import type { GenerationResult, TokenLogprob } from './types.js';

/**
 * The parts of the OpenAI protocol a method step needs beyond a plain chat call — stop sequences,
 * token logprobs, a call's own max_tokens, `reasoning_content`, and the completions API
 * (`/v1/completions`, a text continued as written) — sent with the `openai` SDK itself: LangChain's
 * ChatOpenAI fixes logprobs at construction and has no text-completion path for chat models, and
 * the protocol's own fields (finish_reason, logprobs) are what these methods read.
 */

const LogprobContentSchema = z.array(z.looseObject({ token: z.string(), logprob: z.number() })).nullable().optional();
const UsageSchema = z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }).nullable().optional();

const ChatBodySchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullable().optional(), reasoning_content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
        logprobs: z.looseObject({ content: LogprobContentSchema }).nullable().optional(),
      }),
    )
    .min(1),
  usage: UsageSchema,
});

const CompletionBodySchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        text: z.string(),
        finish_reason: z.string().nullable().optional(),
        logprobs: z.looseObject({ tokens: z.array(z.string()), token_logprobs: z.array(z.number().nullable()) }).nullable().optional(),
      }),
    )
    .min(1),
  usage: UsageSchema,
});

/** `body` checked as a `what`: a MalformedResponseError naming the fields that are not. */
const checked = <T>(schema: z.ZodType<T>, body: unknown, what: string): T => parseWith(schema, body, (problems) => new MalformedResponseError(`response is not a ${what}: ${problems}`));

/** What a result of either API carries besides its text, each only where the body has it: usage, token logprobs, finish reason. */
function resultFields(usage: z.infer<typeof UsageSchema>, logprobs: TokenLogprob[] | undefined, finishReason: string | null | undefined): Partial<GenerationResult> {
  const counted = usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens } : undefined;
  return { ...(counted ? { usage: counted } : {}), ...(logprobs ? { logprobs } : {}), ...(finishReason ? { finishReason } : {}) };
}

/** A chat completion's JSON as a result: reasoning split off (`reasoning_content` or `<think>`), logprobs and finish reason kept. */
export function chatResultOf(body: unknown): GenerationResult {
  const data = checked(ChatBodySchema, body, 'chat completion');
  const choice = data.choices[0]!;
  const raw = choice.message.content ?? '';
  const { text, reasoning } = splitReasoning(raw, choice.message.reasoning_content ?? undefined);
  if (raw.trim() === '' && !reasoning) throw new EmptyCompletionError();
  const logprobs = choice.logprobs?.content?.map(({ token, logprob }) => ({ token, logprob }));
  return { text, raw, ...(reasoning ? { reasoning } : {}), ...resultFields(data.usage, logprobs, choice.finish_reason) };
}

/** A text completion's JSON as a result: the continuation is raw text (reasoning is not split: the caller reads its own tags). */
export function completionResultOf(body: unknown): GenerationResult {
  const data = checked(CompletionBodySchema, body, 'text completion');
  const choice = data.choices[0]!;
  if (choice.text === '') throw new EmptyCompletionError();
  const tokens = choice.logprobs;
  const logprobs = tokens ? tokens.tokens.map((token, i) => ({ token, logprob: tokens.token_logprobs[i] ?? 0 })) : undefined;
  return { text: choice.text, raw: choice.text, ...resultFields(data.usage, logprobs, choice.finish_reason) };
}

export interface ProtocolSettings {
  model: string;
  temperature: number;
  maxTokens?: number;
  extraBody: Record<string, unknown>;
  /** The seed the call in progress sends (the model's seed plus the sample index); undefined: none is sent. */
  seed?: () => number | undefined;
  apiKey: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof fetch;
}

/** The request body a protocol request sends (and a batch line carries). */
export function protocolBody(settings: ProtocolSettings, request: ProtocolRequest): Record<string, unknown> {
  // A call's own maxTokens can only lower the model's (the plan bounds every output by the model's).
  const maxTokens = request.call.maxTokens !== undefined && settings.maxTokens !== undefined ? Math.min(request.call.maxTokens, settings.maxTokens) : (request.call.maxTokens ?? settings.maxTokens);
  const seed = settings.seed?.();
  const common = {
    model: settings.model,
    temperature: settings.temperature,
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(request.call.stop?.length ? { stop: request.call.stop } : {}),
    ...settings.extraBody,
    ...(seed !== undefined ? { seed } : {}),
  };
  if (request.kind === 'completions') return { ...common, prompt: request.prompt, ...(request.call.logprobs ? { logprobs: 1 } : {}) };
  return {
    ...common,
    messages: request.messages.map((m) => ({ role: m.role, content: contentAsText(m.content) })),
    ...(request.call.logprobs ? { logprobs: true, top_logprobs: 1 } : {}),
  };
}

/** A sender per replica endpoint (SDK clients made once each); errors are the SDK's (status, headers), which the retry policy classifies. */
export function protocolSender(settings: ProtocolSettings) {
  const clients = new Map<string, OpenAI>();
  const client = (baseURL: string) => {
    let found = clients.get(baseURL);
    if (!found) {
      found = new OpenAI({ baseURL, apiKey: settings.apiKey, timeout: settings.timeoutMs, maxRetries: 0, defaultHeaders: settings.headers, fetch: settings.fetch });
      clients.set(baseURL, found);
    }
    return found;
  };
  return {
    async send(endpoint: string, request: ProtocolRequest, signal: AbortSignal | undefined): Promise<GenerationResult> {
      const body = protocolBody(settings, request);
      if (request.kind === 'completions') return completionResultOf(await client(endpoint).completions.create(body as never, { signal }));
      return chatResultOf(await client(endpoint).chat.completions.create(body as never, { signal }));
    },
    batchBody: (request: ProtocolRequest & { kind: 'chat' }) => protocolBody(settings, request),
  };
}
