import { z } from 'zod';

/** The execution settings every call to an external system runs under: those of a model endpoint. */
export const CallPolicyShape = {
  concurrency: z.number().int().positive().default(4).describe('Requests in flight to this system at once (shared by everything that calls the same endpoint)'),
  retries: z.number().int().min(0).default(5).describe('Retries of a failed request (network error, 429, 5xx), with exponential backoff'),
  retryBaseMs: z.number().int().min(0).default(1000).describe('First backoff delay in ms (doubles per retry, up to retryMaxMs)'),
  retryMaxMs: z.number().int().min(0).default(60_000).describe('Longest backoff delay in ms'),
  retryAfterMaxMs: z.number().int().min(0).default(300_000).describe('Longest server Retry-After honoured'),
  unavailableAfterMs: z.number().int().positive().default(30_000).describe('A system failing every request (connection refused, timeouts, 5xx) this long stops the run (exit 3, resumable)'),
  cache: z.string().min(1).optional().describe('Path of the SQLite response cache (keyed by the request); omit for none'),
};
const CallPolicySchema = z.object(CallPolicyShape);
export type CallPolicyParams = z.infer<typeof CallPolicySchema>;
