import { z } from 'zod';
import type { ComponentSchema } from '../registry.js';
import { BatchSettingsSchema } from './batchQueue.js';
import { RateLimitSchema } from '../endpoints/rateLimit.js';
import { ImageSettingsSchema } from './imageTokens.js';

/** The params' fields (for schemas that extend them); OpenAIParamsSchema adds the checks across fields. */
export const OpenAIParamsFields = z
  .object({
    baseURL: z.union([z.string().url(), z.array(z.string().url()).min(1, { error: 'expected at least one replica URL' })]).describe('The endpoint, or a list of replicas of one model (vLLM data-parallel, several servers): each request goes to the replica with the fewest in flight; a failing replica is drained and tried again later; the run stops (exit 3) only when every replica is down'),
    model: z.string().min(1).describe('Model name sent to the endpoint'),
    apiKeyEnv: z.string().min(1).optional().describe('Name of the environment variable holding the API key; omit for servers that need none'),
    temperature: z.number().min(0).max(2).default(0).describe('Sampling temperature (0: greedy; > 0 with `samples` for repeated samples)'),
    seed: z.number({ error: 'expected an integer (sample i sends seed + i)' }).int({ error: 'expected an integer (sample i sends seed + i)' }).optional().describe('Seeds the endpoint\'s sampling (vLLM and OpenAI honour `seed`): every request of sample i carries `seed + i`, so repeated samples at temperature > 0 are distinct and reproducible; omitted, no `seed` is sent'),
    maxTokens: z.number().int().positive().optional().describe('Longest answer in tokens (default: the server\'s)'),
    headers: z.record(z.string(), z.string()).default({}).describe('Extra HTTP headers (not part of the cache key; never recorded in describe())'),
    extraBody: z.record(z.string(), z.unknown()).default({}).describe('Extra request-body fields, e.g. `{ enable_thinking: false }` or `{ top_p: 0.9 }`; part of the cache key'),
    timeoutMs: z.number().int().positive().default(300_000).describe('A request with no reply after this many ms fails (and is retried)'),
    concurrency: z.number().int().positive().default(4).describe('Requests in flight to this endpoint at once (shared by everything that uses the same baseURL)'),
    retries: z.number().int().min(0).default(5).describe('Retries of a failed request (network error, 429, 5xx); an answer still empty after them is an empty answer'),
    retryBaseMs: z.number().int().min(0).default(1000).describe('First backoff delay in ms (doubles per retry, up to retryMaxMs)'),
    retryMaxMs: z.number().int().min(0).default(60_000).describe('Longest backoff delay in ms'),
    unavailableAfterMs: z.number().int().positive().default(30_000).describe('An endpoint failing every request (connection refused, DNS, timeouts, 5xx) this long stops the run'),
    retryAfterMaxMs: z.number().int().min(0).default(300_000).describe('Longest server Retry-After honoured'),
    cache: z.string().min(1).optional().describe('Path of the SQLite response cache; omit for none'),
    rateLimit: RateLimitSchema.optional().describe('The provider\'s limits, paced evenly (shared by everything that uses the same baseURL); without it the endpoint\'s x-ratelimit-* headers set the pace'),
    batch: z.union([z.boolean(), BatchSettingsSchema]).optional().describe('Answer through the endpoint\'s Batch API (OpenAI, DashScope: half price) instead of live calls: `true`, or `{ retries, requestsPerFile, bytesPerFile, pollMs, completionWindow }`; results go into `cache` (default `.cache/responses-<model>.sqlite`), see docs/batch.md'),
    batchFallback: z.enum(['resubmit', 'live']).optional().describe('A batch line that failed or expired: `resubmit` it in the next round\'s batch (up to batch.retries), or answer it `live`'),
    images: ImageSettingsSchema.optional().describe('A vision-language model: how page images are prepared for it (`maxPixels`, `maxSide`, format, quality; cached by content in `cache`) and counted (`tokens`: `qwen-vl`, `openai-tiles` or `fixed`); without it, a prompt with page images is refused'),
  })
  .strict();

/** With both, which seed is sent would depend on spread order (LangChain puts extraBody last, the protocol path the seed): one only. */
export function seedConflict(params: { seed?: number; extraBody?: Record<string, unknown> }): string | undefined {
  return params.seed !== undefined && params.extraBody?.seed !== undefined ? 'set either seed (sent as seed + sample index) or extraBody.seed (the same for every sample), not both' : undefined;
}

export const OpenAIParamsSchema = OpenAIParamsFields.superRefine((params, ctx) => {
  const conflict = seedConflict(params);
  if (conflict) ctx.addIssue({ code: 'custom', path: ['seed'], message: conflict });
});
export type OpenAIParams = z.infer<typeof OpenAIParamsSchema>;
export const openaiSchema: ComponentSchema<OpenAIParams> = {
  name: 'openai',
  description: 'Any OpenAI-compatible chat endpoint (OpenAI, DeepSeek, Qwen, vLLM, Ollama) through LangChain ChatOpenAI.',
  params: OpenAIParamsSchema,
};
