import { z } from 'zod';

/** A generator's answer as the response cache stores it (generation/types.ts's GenerationResult less `cached`). */
const CachedResultSchema = z.object({
  text: z.string(),
  raw: z.string(),
  reasoning: z.string().optional(),
  usage: z.object({ promptTokens: z.number().optional(), completionTokens: z.number().optional(), totalTokens: z.number().optional() }).optional(),
  toolCalls: z.array(z.object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()) })).optional(),
  logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })).optional(),
  finishReason: z.string().optional(),
});
export type CachedResult = z.infer<typeof CachedResultSchema>;

/** A row's value in the response cache (`.cache/*.sqlite`, table `llm_responses`): the model that gave it and when (for people inspecting the file), the result. */
const ResponseCacheEntrySchema = z.object({ model: z.string().optional(), createdAt: z.string().optional(), result: CachedResultSchema });
export type ResponseCacheEntry = { model: string; createdAt: string; result: CachedResult };

/**
 * A row's result (its JSON decoded), or undefined when it is no entry. Unlike a run's files, a damaged
 * entry is a miss, never an error: it only saves a call that can be made again, and the next success overwrites it.
 */
export function readResponseCacheEntry(value: unknown): CachedResult | undefined {
  const parsed = ResponseCacheEntrySchema.safeParse(value);
  return parsed.success ? parsed.data.result : undefined;
}
