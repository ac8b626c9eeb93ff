import { z } from 'zod';

/**
 * What a run has submitted to batch APIs, one event per line of `batches/ledger.jsonl` in the run
 * directory, each appended (and fsynced) the moment it happens — so a run resumed after Ctrl-C or
 * `kill -9` re-attaches to its batches instead of submitting their requests again:
 *   prepared  the input file is on disk, with the custom_ids it holds (before any upload);
 *   uploaded  the provider has the file (its id);
 *   created   the batch exists (its id);
 *   finished  its output is in the response cache: which requests were answered, which failed and why;
 *   live      requests of a queue answered live while the run collected its batches (a completion, which
 *             the Batch API does not take, or a failed line under `fallback: live`): paid calls, so a
 *             resumed run that replays them from the cache still counts them as calls, not as free hits.
 */
export const LedgerEventSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('prepared'), submission: z.string(), queue: z.string(), model: z.string(), round: z.number().int(), file: z.string(), customIds: z.array(z.string()) }),
  z.object({ event: z.literal('uploaded'), submission: z.string(), fileId: z.string() }),
  z.object({ event: z.literal('created'), submission: z.string(), batchId: z.string() }),
  z.object({
    event: z.literal('finished'),
    submission: z.string(),
    status: z.string(),
    answered: z.array(z.string()),
    failed: z.array(z.object({ customId: z.string(), message: z.string(), empty: z.boolean().optional() })),
  }),
  z.object({ event: z.literal('live'), queue: z.string(), keys: z.array(z.string()) }),
]);
export type LedgerEvent = z.infer<typeof LedgerEventSchema>;
