import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { ResponseCache } from './responseCache.js';
import type { GenerationResult } from './types.js';
import type { BatchClient } from '../endpoints/batchClient.js';

/** A generator's batch settings: `batch: { … }` on an openai model's spec (`batch: true` takes the defaults). */
export const BatchSettingsSchema = z.strictObject({
  /** Times a failed or expired line is resubmitted (default 2); with `batchFallback: live` it is answered live instead. */
  retries: z.number().int().min(0).default(2),
  /** The provider's limits per input file: OpenAI's are 50,000 requests and 200 MB. */
  requestsPerFile: z.number().int().positive().default(50_000),
  bytesPerFile: z.number().int().positive().default(200 * 1024 * 1024),
  /** How often a batch's status is asked for. */
  pollMs: z.number().int().positive().default(30_000),
  /** The completion window asked for (OpenAI and DashScope offer `24h`). */
  completionWindow: z.string().min(1).default('24h'),
});
export type BatchSettings = z.output<typeof BatchSettingsSchema> & {
  /** What happens to a line that failed or expired: `resubmit` it in the next round's batch, or answer it `live`. */
  fallback: 'resubmit' | 'live';
};

/** One line of a Batch API input file: `custom_id` is the response-cache key of the request. */
export interface BatchRequestLine {
  custom_id: string;
  method: 'POST';
  url: '/v1/chat/completions';
  body: Record<string, unknown>;
}

/** Why a request has no answer yet after its batches: the provider's error, or an empty completion. */
export interface BatchFailure {
  message: string;
  empty?: boolean;
}

/**
 * Refuses `batch` on a generator that is not driven round by round (a reranker's, the diagnostics'
 * claim extractor and checker): its calls could never be answered.
 */
export function assertLiveGenerator(spec: Record<string, unknown>, path: string, who: string): void {
  if (spec.batch !== undefined && spec.batch !== false) {
    throw new ConfigError(`${path}.batch: ${who} calls its model live; batch mode is for a run's models, judge and answer extractor (remove batch here)`);
  }
}

/** What the queue makes of one request (see `serve`). */
export type Served =
  | { kind: 'answer'; result: GenerationResult }
  | { kind: 'pending' }
  | { kind: 'failed'; failure: BatchFailure; submissions: number }
  | { kind: 'live' };

/** Thrown by a generator in collecting mode for a request that goes into the round's batch. */
export class BatchPendingError extends Error {
  constructor() {
    super('the request goes into the next batch (batch mode: this round only collects requests)');
    this.name = 'BatchPendingError';
  }
}

/**
 * The requests of one generator (endpoint, model, response cache) answered through a batch API.
 * A run drives it round by round (src/batch/batchRounds.ts): in `collect` mode every request the
 * cache cannot answer is queued and the caller told to wait (BatchPendingError); the round's
 * requests are submitted as one batch, whose results go into the response cache under their
 * `custom_id`; in `answer` mode (the run proper) every request is answered from the cache, and one
 * no batch could answer fails with the provider's reason — or, with `fallback: live`, is sent live.
 */
export class BatchQueue {
  /** Stable across processes: the run directory's ledger names submissions by it. */
  readonly id: string;
  mode: 'collect' | 'answer' = 'answer';
  readonly pending = new Map<string, BatchRequestLine>();
  /** Requests answered by this run's batches (their answers are billed at the batch price, not free). */
  readonly answered = new Set<string>();
  /** The last failure of each request that no batch has answered yet. */
  readonly failures = new Map<string, BatchFailure>();
  /** Requests answered live in this process: a batch failed them and `fallback: live` applied, or the Batch API cannot take them (completions). */
  readonly answeredLive = new Set<string>();
  /** Times each request was put into a batch. */
  readonly submissions = new Map<string, number>();

  constructor(
    readonly model: string,
    /** The endpoint (pool) the generator calls, for logs and the queue's id. */
    readonly endpointLabel: string,
    /** A client of the endpoint's Batch API (holds the key: kept out of the queue's fields). */
    readonly connect: () => BatchClient,
    readonly cache: ResponseCache,
    readonly settings: BatchSettings,
    /** A Batch API output line's `response.body` (a chat completion) as the generator's result; throws on an empty or malformed one. */
    readonly parseCompletion: (body: unknown) => GenerationResult,
    /** True when the model's spec says `batch: true`; an export (`hisrag batch export`) also drives queues that are not. */
    readonly enabled: boolean,
    /** True when the spec named no `cache:` and batch mode chose the cache (the run's banner says where it is). */
    readonly cacheChosen = false,
  ) {
    this.id = createHash('sha256').update(`${endpointLabel}\u0000${model}\u0000${resolve(cache.path)}`).digest('hex').slice(0, 12);
  }

  /** Submissions a request may have: resubmitted `retries` times, or once when failures are answered live. */
  get maxSubmissions(): number {
    return this.settings.fallback === 'live' ? 1 : 1 + this.settings.retries;
  }

  /**
   * Answers one request from what the batches returned. `refresh` (a judge asking again after an
   * unusable reply) queues the request once more while it has submissions left.
   */
  serve(key: string, refresh: boolean, line: () => BatchRequestLine): Served {
    const submitted = this.submissions.get(key) ?? 0;
    const canSubmit = submitted < this.maxSubmissions;
    if (this.mode === 'collect' && this.pending.has(key)) return { kind: 'pending' };
    const hit = this.cache.get(key);
    if (hit && !(refresh && this.mode === 'collect' && canSubmit)) {
      // An answer a batch of this run gave is a paid call at the batch price, one answered live a paid call
      // at the live price; anything else in the cache is free.
      if (this.answered.has(key)) return { kind: 'answer', result: { ...hit, cached: false, batched: true } };
      return { kind: 'answer', result: this.answeredLive.has(key) ? { ...hit, cached: false } : hit };
    }
    if (this.mode === 'collect') {
      if (!canSubmit && this.settings.fallback === 'live' && this.enabled) {
        // Answered live at once, so the item's next steps still go into the next round's batch.
        this.answeredLive.add(key);
        return { kind: 'live' };
      }
      if (!canSubmit) return { kind: 'failed', failure: this.failureOf(key), submissions: submitted };
      this.pending.set(key, line());
      return { kind: 'pending' };
    }
    if (this.settings.fallback === 'live' || !this.enabled) return { kind: 'live' };
    return { kind: 'failed', failure: this.failureOf(key), submissions: submitted };
  }

  private failureOf(key: string): BatchFailure {
    return this.failures.get(key) ?? { message: 'no batch has answered this request' };
  }

  /** Records what one finished batch gave: answers (already in the cache) and failures. */
  recordFinished(customIds: string[], answered: string[], failed: Map<string, BatchFailure>, options: { earlierInvocation?: boolean } = {}): void {
    // Submissions are counted per invocation: a resumed run gives lines that failed before `retries` more chances.
    if (!options.earlierInvocation) for (const id of customIds) this.submissions.set(id, (this.submissions.get(id) ?? 0) + 1);
    for (const id of answered) {
      this.answered.add(id);
      this.failures.delete(id);
    }
    for (const [id, failure] of failed) this.failures.set(id, failure);
  }
}
