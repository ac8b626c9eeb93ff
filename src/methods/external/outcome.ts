import type { GenerationResult } from '../../generation/types.js';
import type { MethodCost } from '../trace.js';
import type { ExternalCost, MethodContext, MethodOutcome } from '../types.js';
import type { MappedReply } from './mapping.js';

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
