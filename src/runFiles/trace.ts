import { z } from 'zod';
import { RecordedMessageSchema } from './pageImage.js';

/** One retrieved passage as a trace step names it: enough to find it in the record's `retrieved`. */
export const TracedPassageSchema = z.object({ id: z.string(), rank: z.number().int().positive(), score: z.number() });

/**
 * One step of a method, in the order it ran: a retrieval (`query`, `passages`), a generation
 * (`messages`, `response`, `usage`), a relevance scoring of sentences (`score`), or a step the
 * method describes itself (`refine`, `judge-retrieval`, …, with `detail`).
 */
export const TraceStepSchema = z.object({
  /** 1-based position in the trace. */
  step: z.number().int().positive(),
  kind: z.string(),
  /** What the step was for within the method: `answer`, `decide`, `candidates`, `summary[2]`, `reason[3]` … */
  label: z.string(),
  query: z.string().optional(),
  passages: z.array(TracedPassageSchema).optional(),
  messages: z.array(RecordedMessageSchema).optional(),
  response: z.string().optional(),
  /** `images`, `imageTokens`: page images the prompt showed and their tokens by the generator's formula (part of `promptTokens`). */
  usage: z
    .object({ promptTokens: z.number(), completionTokens: z.number(), images: z.number().int().nonnegative().optional(), imageTokens: z.number().nonnegative().optional() })
    .optional(),
  /** True when `usage` was estimated with the token counter (the endpoint reported none). */
  usageEstimated: z.boolean().optional(),
  cached: z.boolean().optional(),
  /** Method-specific figures of the step (refine: characters and tokens before and after). */
  detail: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
  ms: z.number().nonnegative(),
  /** Set on the step that failed the item: the last one in its trace, but for steps asked at the same time as it (CRAG's grades), which are traced after it in asking order. */
  error: z.string().optional(),
});
export type TraceStep = z.infer<typeof TraceStepSchema>;

/** What answering one item cost: calls, tokens (endpoint usage, or estimated) and wall time. */
export const MethodCostSchema = z.object({
  retrievalCalls: z.number().int().nonnegative(),
  generationCalls: z.number().int().nonnegative(),
  promptTokens: z.number().nonnegative(),
  completionTokens: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
  /** Some generation reported no usage: its tokens were estimated with the token counter. */
  estimatedTokens: z.boolean().optional(),
  /** Generations answered from the response cache (their tokens still count: that is what the method costs). */
  cachedCalls: z.number().int().nonnegative().optional(),
  /** Generations a batch API answered (batch mode): priced at the model's `batchDiscount`. */
  batchedCalls: z.number().int().nonnegative().optional(),
  /** 429 responses the answer's calls received (each retried), and milliseconds they waited for the endpoint's rate limit. */
  rateLimited: z.number().int().nonnegative().optional(),
  rateLimitWaitMs: z.number().nonnegative().optional(),
  /** Page images the answer's prompts showed, and their tokens by the generator's formula (counted in `promptTokens`, so the price follows). */
  images: z.number().int().nonnegative().optional(),
  imageTokens: z.number().nonnegative().optional(),
  /** promptTokens × inputPerMillion + completionTokens × outputPerMillion, ÷ 10⁶, when the model has a `price` (batched calls × batchDiscount). */
  price: z.number().nonnegative().optional(),
});
export type MethodCost = z.infer<typeof MethodCostSchema>;

/** Figures a method reports about one item (adaptive: `retrieved`; ircot: `reachedMaxSteps` …): numbers or flags. */
export const MethodNotesSchema = z.record(z.string(), z.union([z.number(), z.boolean()]));
export type MethodNotes = z.infer<typeof MethodNotesSchema>;
