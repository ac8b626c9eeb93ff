import type { BenchmarkItem } from '../benchmarks/types.js';
import { InputError, ServiceUnavailableError } from '../errors.js';
import type { BaseMessage } from '@langchain/core/messages';
import { GenerationError } from '../endpoints/generationError.js';
import type { CallSettings, GenerationResult, Generator, ToolDefinition } from '../generation/types.js';
import type { TokenCounter } from '../text/tokenCounter.js';
import type { ChatMessage } from '../prompting/types.js';
import { messageTokens, promptImages, recordedMessageOf } from '../prompting/messageContent.js';
import { imagesRefused } from '../generation/imageTokens.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { MethodStepError } from './stepError.js';
import type { MethodCost, TraceStep } from '../runFiles/trace.js';
import type { MethodContext } from './types.js';

export interface MethodRunOptions {
  item: BenchmarkItem;
  /** Passages per retrieval call; 0 for a condition without retrieval. */
  k: number;
  generator: Generator;
  countTokens: TokenCounter;
  signal?: AbortSignal;
  /** The condition's retrieval for one query text at depth k; absent when the condition does not retrieve. */
  retrieve?: (text: string) => Promise<RetrievedChunk[]>;
  /** The retriever's relevance scores of texts against a query; absent when it has none. */
  relevance?: (query: string, texts: string[]) => Promise<number[]>;
  /** `{ inputPerMillion, outputPerMillion, batchDiscount }` of the model, for the cost's price. */
  price?: { inputPerMillion: number; outputPerMillion: number; batchDiscount?: number };
  now?: () => number;
}

/** Errors that stop the run rather than fail one item: bad input, an endpoint that is down. */
const stopsTheRun = (error: unknown) => error instanceof InputError || error instanceof ServiceUnavailableError;

/**
 * The context one method run gets for one item, and its bookkeeping: each call becomes a trace
 * step (in the order the method asked for them, also for calls made at once, with its query or
 * messages, passages, response, usage and milliseconds), the cost is counted as it goes, and the
 * passages of every retrieval are unioned (first appearance first) for the record's `retrieved`
 * and the retrieval metrics.
 */
export class MethodRun implements MethodContext {
  readonly item: BenchmarkItem;
  readonly k: number;
  readonly signal?: AbortSignal;
  readonly trace: TraceStep[] = [];
  readonly #options: MethodRunOptions;
  readonly #union = new Map<string, RetrievedChunk>();
  readonly #now: () => number;
  readonly #started: number;
  #retrievalCalls = 0;
  #generationCalls = 0;
  #promptTokens = 0;
  #completionTokens = 0;
  #estimated = false;
  #cachedCalls = 0;
  #batchedCalls = 0;
  /** Tokens of the calls a batch answered, priced at the batch rate. */
  #batchedTokens = { prompt: 0, completion: 0 };
  #rateLimited = 0;
  #rateLimitWaitMs = 0;
  #images = 0;
  #imageTokens = 0;
  /** Settles when every step asked so far is in the trace (see #step). */
  #lastStep: Promise<void> = Promise.resolve();
  /** Steps asked whose trace entry is not written yet. */
  #unsettled = 0;
  /** The list retrieved for the item's own question, if the method asked for it. */
  questionList?: RetrievedChunk[];

  constructor(options: MethodRunOptions) {
    this.#options = options;
    this.item = options.item;
    this.k = options.k;
    this.signal = options.signal;
    this.#now = options.now ?? Date.now;
    this.#started = this.#now();
  }

  get model(): string {
    const generator = this.#options.generator;
    return `"${generator.model}" (generator ${generator.name})`;
  }

  countTokens(text: string): number {
    return this.#options.countTokens(text);
  }

  #push(step: Omit<TraceStep, 'step'>): TraceStep {
    const entry = { step: this.trace.length + 1, ...step } as TraceStep;
    this.trace.push(entry);
    return entry;
  }

  #fail(kind: string, label: string, ms: number, fields: Partial<TraceStep>, cause: unknown, stopsRun = false): never {
    if (stopsTheRun(cause) || this.signal?.aborted) throw cause;
    const step = this.#push({ kind, label, ...fields, ms, error: cause instanceof Error ? cause.message : String(cause) });
    throw new MethodStepError(step.step, label, kind, cause, stopsRun);
  }

  /**
   * One traced step: `ask` starts at once, so steps a method starts together run together (CRAG's
   * grades); `settle` writes what it gave to the trace and the cost only after every step asked
   * before it, so the trace keeps the order the method asked in, whatever order the replies come in.
   * A method that awaits each step before the next never waits here.
   */
  async #step<R, T>(ask: () => Promise<R>, settle: (reply: { value: R } | { error: unknown }, ms: number) => T): Promise<T> {
    const turn = this.#lastStep;
    let done!: () => void;
    this.#lastStep = new Promise<void>((resolve) => (done = resolve));
    this.#unsettled++;
    const started = this.#now();
    try {
      let reply: { value: R } | { error: unknown };
      try {
        reply = { value: await ask() };
      } catch (error) {
        reply = { error };
      }
      const ms = this.#now() - started;
      await turn;
      return settle(reply, ms);
    } finally {
      this.#unsettled--;
      done();
    }
  }

  async retrieve(query: string, label: string): Promise<RetrievedChunk[]> {
    const retrieve = this.#options.retrieve;
    if (!retrieve) throw new Error(`method step "${label}" retrieves, but this condition has no retriever`);
    this.#retrievalCalls++;
    return this.#step(
      () => retrieve(query),
      (reply, ms) => {
        if ('error' in reply) this.#fail('retrieve', label, ms, { query }, reply.error);
        const list = reply.value;
        // In turn: the union's first-appearance order is the order the retrievals were asked in.
        if (query === this.item.question && !this.questionList) this.questionList = list;
        for (const chunk of list) if (!this.#union.has(chunk.id)) this.#union.set(chunk.id, chunk);
        this.#push({ kind: 'retrieve', label, query, passages: list.map((c) => ({ id: c.id, rank: c.rank, score: c.score })), ms });
        return list;
      },
    );
  }

  async generate(label: string, messages: ChatMessage[], options: { final?: boolean; call?: CallSettings } = {}): Promise<GenerationResult> {
    const generator = this.#options.generator;
    const images = promptImages(messages);
    // A model that cannot see images is refused before its first call (ConfigError: the run stops).
    if (images.length && !generator.imageTokens) throw imagesRefused(generator, images.length);
    const shown = {
      images: images.length,
      imageTokens: images.reduce((n, image) => n + generator.imageTokens!(image), 0),
      textTokens: () => messages.reduce((n, m) => n + messageTokens(m, (text) => this.countTokens(text), () => 0), 0),
    };
    const call = { signal: this.signal, ...(options.call ? { call: options.call } : {}) };
    return this.#modelStep(label, messages.map(recordedMessageOf), () => generator.generate(messages, call), { ...options, shown });
  }

  async complete(label: string, prompt: string, options: { final?: boolean; call?: CallSettings } = {}): Promise<GenerationResult> {
    const generator = this.#options.generator;
    const call = { signal: this.signal, ...(options.call ? { call: options.call } : {}) };
    return this.#modelStep(label, [{ role: 'prompt', content: prompt }], () => generator.complete!(prompt, call), {
      ...options,
      lacks: generator.complete ? undefined : `generator ${generator.name} (${generator.model}) has no completions API (api: completions needs one)`,
    });
  }

  async chatTurn(label: string, messages: BaseMessage[], tools: ToolDefinition[]): Promise<GenerationResult> {
    const generator = this.#options.generator;
    // LangChain's message classes load with the first tool-calling turn (the agent), not with every method.
    const { recordedMessage } = await import('../generation/langchainMessages.js');
    return this.#modelStep(label, messages.map(recordedMessage), () => generator.chatTurn!(messages, { tools, signal: this.signal }), {
      lacks: generator.chatTurn ? undefined : `generator ${generator.name} (${generator.model}) cannot call tools`,
      // A 400 to a request that offers tools: the model (or its server) does not do tool calling,
      // and every other item would fail the same way.
      failure: (error) =>
        tools.length > 0 && error instanceof GenerationError && error.status === 400
          ? { cause: new Error(`model "${generator.model}" rejected a request offering tools (HTTP 400: ${error.message}): it does not support tool calling, which this method needs; use a model with tool calling`), stopsRun: true }
          : undefined,
      response: (result) => [result.raw, ...(result.toolCalls ?? []).map((c) => `${c.name}(${JSON.stringify(c.args)})`)].filter(Boolean).join('\n'),
    });
  }

  /**
   * A model call as a traced step. An intermediate reply (not `final`; every tool-calling turn) still
   * empty after the endpoint's retries fails the item: the method cannot continue honestly. A
   * generator that `lacks` what the call needs fails it as a step, and the run stops.
   */
  #modelStep(
    label: string,
    messages: { role: string; content: string }[],
    ask: () => Promise<GenerationResult>,
    how: {
      final?: boolean;
      shown?: { images: number; imageTokens: number; textTokens: () => number };
      lacks?: string;
      failure?: (error: unknown) => { cause: unknown; stopsRun: boolean } | undefined;
      response?: (result: GenerationResult) => string;
    },
  ): Promise<GenerationResult> {
    this.#generationCalls++;
    const missing = how.lacks === undefined ? undefined : new Error(how.lacks);
    return this.#step(missing ? () => Promise.reject(missing) : ask, (reply, ms) => {
      if ('error' in reply) {
        const { cause, stopsRun } = how.failure?.(reply.error) ?? { cause: reply.error, stopsRun: missing !== undefined && reply.error === missing };
        this.#fail('generate', label, ms, { messages }, cause, stopsRun);
      }
      const result = reply.value;
      const fields = this.#account(result, messages, how.shown);
      if (!how.final && result.emptyAfterAttempts) this.#fail('generate', label, ms, fields, new Error(`empty completion on all ${result.emptyAfterAttempts} attempts`));
      this.#push({ kind: 'generate', label, ...fields, ...(how.response ? { response: how.response(result) } : {}), ms });
      return result;
    });
  }

  /**
   * Counts a generation's calls and tokens (the endpoint's usage, or estimated: text tokens plus the
   * images' tokens by the generator's formula); the trace fields it gets.
   */
  #account(
    result: GenerationResult,
    messages: { role: string; content: string }[],
    shown?: { images: number; imageTokens: number; textTokens: () => number },
  ): Partial<TraceStep> {
    const reported = result.usage;
    // Some servers leave out a zero completion count (a reply that is only tool calls): the total says it.
    const completion = reported?.completionTokens ?? (reported?.totalTokens !== undefined && reported.promptTokens !== undefined ? reported.totalTokens - reported.promptTokens : undefined);
    const usage = reported && typeof reported.promptTokens === 'number' && typeof completion === 'number' ? { promptTokens: reported.promptTokens, completionTokens: completion } : undefined;
    const estimated = {
      promptTokens: shown?.images ? shown.textTokens() + shown.imageTokens : messages.reduce((sum, m) => sum + this.countTokens(m.content), 0),
      // Reasoning returned apart from the content (`reasoning_content`) was generated too.
      completionTokens: this.countTokens(result.reasoning && !result.raw.includes(result.reasoning) ? `${result.reasoning}\n${result.raw}` : result.raw),
    };
    const counted = usage ?? estimated;
    if (shown?.images) {
      this.#images += shown.images;
      this.#imageTokens += shown.imageTokens;
    }
    this.#promptTokens += counted.promptTokens;
    this.#completionTokens += counted.completionTokens;
    if (!usage) this.#estimated = true;
    if (result.cached) this.#cachedCalls++;
    if (result.batched) {
      this.#batchedCalls++;
      this.#batchedTokens.prompt += counted.promptTokens;
      this.#batchedTokens.completion += counted.completionTokens;
    }
    if (result.rateLimit) {
      this.#rateLimited += result.rateLimit.rateLimited;
      this.#rateLimitWaitMs += result.rateLimit.waitedMs;
    }
    return {
      messages,
      response: result.reasoning && !result.raw.includes(result.reasoning) ? `<think>${result.reasoning}</think>${result.raw}` : result.raw,
      usage: shown?.images ? { ...counted, images: shown.images, imageTokens: shown.imageTokens } : counted,
      ...(usage ? {} : { usageEstimated: true }),
      ...(result.cached ? { cached: true } : {}),
    };
  }

  async relevance(query: string, texts: string[], label: string): Promise<number[]> {
    const relevance = this.#options.relevance;
    if (!relevance) throw new Error(`method step "${label}" scores sentences, but this condition's retriever cannot`);
    return this.#step(
      () => relevance(query, texts),
      (reply, ms) => {
        if ('error' in reply) this.#fail('score', label, ms, { query }, reply.error);
        this.#push({ kind: 'score', label, query, detail: { texts: texts.length }, ms });
        return reply.value;
      },
    );
  }

  record(kind: string, label: string, detail: Record<string, number | string | boolean>): void {
    // After the steps asked before it, like every step (at once when none is outstanding).
    if (this.#unsettled === 0) this.#push({ kind, label, detail, ms: 0 });
    else void this.#step(() => Promise.resolve(), () => this.#push({ kind, label, detail, ms: 0 }));
  }

  /** Every passage the method retrieved, each once, in order of first retrieval. */
  retrieved(): RetrievedChunk[] {
    return [...this.#union.values()];
  }

  /** Live (and cached) calls at the model's price, batched ones at its batch share. */
  #price(price: NonNullable<MethodRunOptions['price']>): number {
    const at = (prompt: number, completion: number) => (prompt * price.inputPerMillion + completion * price.outputPerMillion) / 1e6;
    const batched = this.#batchedTokens;
    return at(this.#promptTokens - batched.prompt, this.#completionTokens - batched.completion) + at(batched.prompt, batched.completion) * (price.batchDiscount ?? 0.5);
  }

  cost(): MethodCost {
    const price = this.#options.price;
    return {
      retrievalCalls: this.#retrievalCalls,
      generationCalls: this.#generationCalls,
      promptTokens: this.#promptTokens,
      completionTokens: this.#completionTokens,
      durationMs: this.#now() - this.#started,
      ...(this.#estimated ? { estimatedTokens: true } : {}),
      ...(this.#cachedCalls ? { cachedCalls: this.#cachedCalls } : {}),
      ...(this.#batchedCalls ? { batchedCalls: this.#batchedCalls } : {}),
      ...(this.#rateLimited ? { rateLimited: this.#rateLimited } : {}),
      ...(this.#rateLimitWaitMs ? { rateLimitWaitMs: this.#rateLimitWaitMs } : {}),
      ...(this.#images ? { images: this.#images, imageTokens: this.#imageTokens } : {}),
      ...(price ? { price: this.#price(price) } : {}),
    };
  }
}
