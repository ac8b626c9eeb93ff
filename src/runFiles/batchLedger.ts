import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { JsonlAppender, readAppendLog } from '../io/jsonl.js';

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

/** One submission (an input file and its batch) as the ledger knows it. */
export interface Submission {
  submission: string;
  queue: string;
  model: string;
  round: number;
  /** Relative to the batches folder. */
  file: string;
  customIds: string[];
  fileId?: string;
  batchId?: string;
  finished?: Extract<LedgerEvent, { event: 'finished' }>;
}

export class BatchLedger {
  readonly submissions = new Map<string, Submission>();
  /** Requests answered live, by queue (the `live` events). */
  readonly live = new Map<string, Set<string>>();
  #chain: Promise<void> = Promise.resolve();

  private constructor(
    readonly dir: string,
    private readonly appender: JsonlAppender,
  ) {}

  static async open(runDir: string): Promise<BatchLedger> {
    const dir = join(runDir, 'batches');
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'ledger.jsonl');
    const events = await readAppendLog(path, LedgerEventSchema, { repair: true });
    const ledger = new BatchLedger(dir, await JsonlAppender.open(path));
    for (const event of events) ledger.#apply(event);
    return ledger;
  }

  #apply(event: LedgerEvent): void {
    if (event.event === 'live') {
      const keys = this.live.get(event.queue) ?? this.live.set(event.queue, new Set()).get(event.queue)!;
      for (const key of event.keys) keys.add(key);
      return;
    }
    if (event.event === 'prepared') {
      const { event: _, ...submission } = event;
      this.submissions.set(event.submission, submission);
      return;
    }
    const submission = this.submissions.get(event.submission);
    if (!submission) return;
    if (event.event === 'uploaded') submission.fileId = event.fileId;
    else if (event.event === 'created') submission.batchId = event.batchId;
    else submission.finished = event;
  }

  /** Appends the event (serialised, fsynced) and applies it. */
  record(event: LedgerEvent): Promise<void> {
    this.#apply(event);
    this.#chain = this.#chain.then(() => this.appender.append([event]));
    return this.#chain;
  }

  /** Records the queue's requests answered live that the ledger does not hold yet (nothing when there are none). */
  async recordLive(queue: string, answeredLive: Iterable<string>): Promise<void> {
    const known = this.live.get(queue);
    const keys = [...answeredLive].filter((key) => !known?.has(key));
    if (keys.length) await this.record({ event: 'live', queue, keys });
  }

  /** Submissions not finished yet: to re-attach to. */
  open(): Submission[] {
    return [...this.submissions.values()].filter((s) => !s.finished);
  }

  lastRound(): number {
    return Math.max(0, ...[...this.submissions.values()].map((s) => s.round));
  }

  async close(): Promise<void> {
    await this.#chain;
    await this.appender.close();
  }
}
