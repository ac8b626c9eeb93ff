import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlAppender, readAppendLog } from '../io/jsonl.js';
import { LedgerEventSchema, type LedgerEvent } from '../runFiles/batchLedger.js';

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
