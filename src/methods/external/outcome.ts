import type { GenerationResult } from '../../generation/types.js';
import type { MethodCost } from '../../runFiles/trace.js';
import type { ExternalCost, MethodContext, MethodOutcome } from '../types.js';
import { ServiceUnavailableError } from '../../errors.js';
import type { MappedReply } from './mapping.js';
import type { CallPolicy } from './policy.js';

/** An external system's calls: its own model calls are its business (none of the run's models is called); one request per answer, none when it fails. */
export const EXTERNAL_CALLS = { min: 0, max: 1, external: true } as const;

/**
 * One request of `method` to an external system under its policy, traced as one step (`kind`,
 * `label`, its `detail`): a failure records its redacted message and fails the item, naming
 * `request`; a system found down stops the run.
 */
export async function externalCall<T>(
  context: MethodContext,
  policy: CallPolicy,
  call: {
    method: string;
    step: { kind: string; label: string; detail: Record<string, string>; request: string };
    key: string | undefined;
    attempt: (signal?: AbortSignal) => Promise<{ raw: string; value: T }>;
    fromCache: (raw: string) => T;
    prompt: { role: string; content: string }[];
    /** The reply of a value (undefined: every attempt was empty), and whether the system says which contexts it used. */
    reply: (value: T | undefined) => { reply: MappedReply; reportsContexts: boolean };
  },
): Promise<MethodOutcome> {
  const { kind, label, detail, request } = call.step;
  const started = Date.now();
  let result;
  try {
    result = await policy.call(call.key, context.signal, call.attempt, call.fromCache);
  } catch (error) {
    if (error instanceof ServiceUnavailableError) throw error;
    const message = policy.redact(error instanceof Error ? error.message : String(error));
    context.record(kind, label, { ...detail, ms: Date.now() - started, error: message });
    throw new Error(`${call.method} "${label}" (${request}) failed: ${message}`);
  }
  const { reply, reportsContexts } = call.reply(result.value);
  context.record(kind, label, {
    ...detail,
    ms: Date.now() - started,
    attempts: result.attempts,
    contexts: reply.contexts.length,
    ...(result.cached ? { cached: true } : {}),
    ...(result.emptyAfterAttempts ? { emptyAfterAttempts: result.emptyAfterAttempts } : {}),
  });
  return externalOutcome(context, reply, {
    prompt: call.prompt,
    cached: result.cached,
    rateLimited: result.rateLimited,
    ...(result.emptyAfterAttempts ? { emptyAfterAttempts: result.emptyAfterAttempts } : {}),
    reportsContexts,
  });
}

/**
 * The outcome of one answer from an external system: its answer is what the scorer sees, its
 * contexts become the record's passages (all of them "in the system's prompt"), and its reported
 * usage (or an estimate from question, contexts and answer, flagged) its cost.
 */
export function externalOutcome(
  context: MethodContext,
  reply: MappedReply,
  details: { prompt: { role: string; content: string }[]; cached?: boolean; emptyAfterAttempts?: number; rateLimited?: number; /** The system says which contexts it used (else it has no retrieval figures). */ reportsContexts: boolean },
): MethodOutcome {
  const usage = reply.usage;
  const estimated = {
    promptTokens: context.countTokens(context.item.question) + reply.contexts.reduce((n, c) => n + context.countTokens(c.text), 0),
    completionTokens: context.countTokens(reply.answer),
  };
  const counted = usage ?? estimated;
  const response: GenerationResult = {
    text: reply.answer,
    raw: reply.answer,
    ...(usage ? { usage: { ...usage, totalTokens: usage.promptTokens + usage.completionTokens } } : {}),
    ...(details.cached ? { cached: true } : {}),
    ...(details.emptyAfterAttempts ? { emptyAfterAttempts: details.emptyAfterAttempts } : {}),
  };
  return {
    answer: reply.answer,
    response,
    prompt: details.prompt,
    contextIds: reply.contexts.map((c) => c.id),
    truncated: 0,
    ...(details.reportsContexts ? { passages: reply.contexts, notes: { contexts: reply.contexts.length } } : {}),
    externalCost: {
      calls: 1,
      ...counted,
      ...(usage ? {} : { estimatedTokens: true }),
      ...(details.cached ? { cachedCalls: 1 } : {}),
      ...(details.rateLimited ? { rateLimited: details.rateLimited } : {}),
      ...(reply.cost !== undefined ? { price: reply.cost } : {}),
    },
  };
}

/** The run's cost of an item with what an external system spent added (its calls count as generation calls). */
export function withExternalCost(cost: MethodCost, external: ExternalCost | undefined): MethodCost {
  if (!external) return cost;
  const cached = (cost.cachedCalls ?? 0) + (external.cachedCalls ?? 0);
  const rateLimited = (cost.rateLimited ?? 0) + (external.rateLimited ?? 0);
  const price = cost.price !== undefined || external.price !== undefined ? (cost.price ?? 0) + (external.price ?? 0) : undefined;
  return {
    ...cost,
    generationCalls: cost.generationCalls + external.calls,
    promptTokens: cost.promptTokens + external.promptTokens,
    completionTokens: cost.completionTokens + external.completionTokens,
    ...(cost.estimatedTokens || external.estimatedTokens ? { estimatedTokens: true } : {}),
    ...(cached ? { cachedCalls: cached } : {}),
    ...(rateLimited ? { rateLimited } : {}),
    ...(price !== undefined ? { price } : {}),
  };
}
