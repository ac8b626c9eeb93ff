import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InterruptedError } from '../errors.js';
import { atomicWrite } from '../io/atomicWrite.js';
import { sleep } from '../endpoints/retryPolicy.js';
import type { GenerationResult } from '../generation/types.js';
import { TERMINAL_STATUSES, isAnsweredLine, lineFailureMessage, parseBatchOutput, type BatchOutputLine, type BatchStatus } from '../endpoints/batchClient.js';
import { BatchLedger, type Submission } from '../runFiles/batchLedger.js';
import type { BatchClient } from '../endpoints/batchClient.js';
import type { BatchFailure, BatchQueue, BatchRequestLine } from '../generation/batchQueue.js';

export interface BatchRoundsOptions {
  /** The queues of every generator with `batch: true` (the run's models, judge, extractor). */
  queues: BatchQueue[];
  /**
   * Runs everything still to answer with the queues collecting (methods, then scoring), recording
   * nothing: each request the cache cannot answer lands in its queue.
   */
  collect: (round: number) => Promise<void>;
  runDir: string;
  log: (line: string) => void;
  signal?: AbortSignal;
  /** Test seam: the client a queue submits through. */
  clientFor?: (queue: BatchQueue) => BatchClient;
}

export interface BatchRoundsResult {
  rounds: number;
  submitted: number;
  answered: number;
  failed: number;
}

/** A run that needs more rounds than this has a method that never settles: stop rather than spend without end. */
const MAX_ROUNDS = 200;

/** Queues of one (endpoint, model, cache) submit together: a request two generators share goes out once. */
interface QueueGroup {
  id: string;
  queues: BatchQueue[];
  lead: BatchQueue;
}

/**
 * Answers a run's model calls through batch APIs, round by round: every still-unanswered item is
 * run with the queues collecting, the round's requests go out as one batch per generator (split at
 * the provider's per-file limits), and once the batches are done their results are in the response
 * cache — the next round gets one step further (a multi-step method's next call, the judge of a
 * finished answer). It ends when a round collects nothing; the run proper then answers every call
 * from the cache. Each submission is in the run directory's ledger from the moment its file exists,
 * so a resumed run re-attaches to its batches (also one created just before a `kill -9`: found by
 * its input file) and submits no request twice. Lines that failed or expired are resubmitted in the
 * next round, up to `retries` times.
 */
export async function answerInBatches(options: BatchRoundsOptions): Promise<BatchRoundsResult> {
  const groups = new Map<string, QueueGroup>();
  for (const queue of options.queues) {
    const group = groups.get(queue.id);
    if (group) group.queues.push(queue);
    else groups.set(queue.id, { id: queue.id, queues: [queue], lead: queue });
  }
  for (const group of groups.values()) {
    const chosen = group.queues.some((q) => q.cacheChosen) ? ' (no cache: given; batch mode chose it)' : '';
    options.log(`batch: ${group.lead.model} answers go into the response cache ${resolve(group.lead.cache.path)}${chosen}`);
  }
  const rounds = new BatchRounds(options, groups, await BatchLedger.open(options.runDir));
  try {
    await rounds.reattach();
    let round = rounds.ledger.lastRound();
    for (let n = 0; ; n++) {
      rounds.stopIfAborted();
      if (n >= MAX_ROUNDS) throw new Error(`batch: still collecting requests after ${MAX_ROUNDS} rounds; a method keeps asking new questions`);
      round++;
      for (const queue of options.queues) {
        queue.mode = 'collect';
        queue.pending.clear();
      }
      try {
        await options.collect(round);
      } finally {
        await rounds.recordLive();
      }
      rounds.stopIfAborted();
      const work = [...groups.values()].filter((g) => g.queues.some((q) => q.pending.size > 0));
      if (work.length === 0) break;
      rounds.result.rounds++;
      options.log(`batch round ${round}: ${work.map((g) => `${new Set(g.queues.flatMap((q) => [...q.pending.keys()])).size} requests to ${g.lead.model}`).join(', ')}`);
      await Promise.all(work.map((group) => rounds.submitRound(group, round)));
    }
    return rounds.result;
  } finally {
    for (const queue of options.queues) {
      queue.mode = 'answer';
      queue.pending.clear();
    }
    await rounds.ledger.close();
  }
}

/** One invocation's batches: its ledger, a client per queue group, and what it got through. */
class BatchRounds {
  readonly result: BatchRoundsResult = { rounds: 0, submitted: 0, answered: 0, failed: 0 };
  private readonly clients = new Map<string, BatchClient>();

  constructor(private readonly options: BatchRoundsOptions, private readonly groups: Map<string, QueueGroup>, readonly ledger: BatchLedger) {}

  stopIfAborted(): void {
    if (this.options.signal?.aborted) throw new InterruptedError(`interrupted while waiting on batches; the submitted batches go on at the provider, and resuming the run re-attaches to them (${join(this.ledger.dir, 'ledger.jsonl')})`);
  }

  /** Requests answered live so far, kept in the ledger: a resumed run does not count them as batch requests. */
  recordLive(): Promise<unknown> {
    return Promise.all([...this.groups.values()].map((g) => this.ledger.recordLive(g.id, g.queues.flatMap((q) => [...q.answeredLive]))));
  }

  /** Takes up what an earlier invocation left in the ledger: finished batches' results, live answers, and batches still open. */
  async reattach(): Promise<void> {
    const { groups, ledger } = this;
    for (const submission of ledger.submissions.values()) {
      const finished = submission.finished;
      if (!finished) continue;
      const failed = new Map(finished.failed.map((f) => [f.customId, { message: f.message, ...(f.empty ? { empty: true } : {}) }]));
      for (const queue of groups.get(submission.queue)?.queues ?? []) queue.recordFinished(submission.customIds, finished.answered, failed, { earlierInvocation: true });
    }
    // Requests an earlier invocation of the run answered live were paid for there.
    for (const [queueId, keys] of ledger.live) for (const queue of groups.get(queueId)?.queues ?? []) for (const key of keys) queue.answeredLive.add(key);
    const open = ledger.open().filter((s) => groups.has(s.queue));
    if (open.length) this.options.log(`batch: re-attaching to ${open.length} batch${open.length === 1 ? '' : 'es'} submitted before (${open.map((s) => s.batchId ?? s.submission).join(', ')})`);
    await Promise.all(open.map((s) => this.complete(s, groups.get(s.queue)!)));
  }

  /** The round's requests of one group, in files cut at the provider's limits, each submitted and awaited. */
  async submitRound(group: QueueGroup, round: number): Promise<void> {
    const lines = new Map<string, BatchRequestLine>();
    for (const queue of group.queues) for (const [key, line] of queue.pending) if (!lines.has(key)) lines.set(key, line);
    const { requestsPerFile, bytesPerFile } = group.lead.settings;
    const parts: { text: string[]; bytes: number; ids: string[] }[] = [];
    for (const [key, line] of lines) {
      const text = `${JSON.stringify(line)}\n`;
      const bytes = Buffer.byteLength(text);
      if (bytes > bytesPerFile) throw new Error(`batch: request ${key} is ${bytes} bytes, more than one input file may hold (bytesPerFile ${bytesPerFile})`);
      let part = parts.at(-1);
      if (!part || part.ids.length >= requestsPerFile || part.bytes + bytes > bytesPerFile) parts.push((part = { text: [], bytes: 0, ids: [] }));
      part.text.push(text);
      part.bytes += bytes;
      part.ids.push(key);
    }
    await Promise.all(
      parts.map(async (p, n) => {
        const name = `r${round}-${group.id}-${n + 1}`;
        const file = `${name}.jsonl`;
        await atomicWrite(join(this.ledger.dir, file), p.text.join(''));
        const submission: Submission = { submission: name, queue: group.id, model: group.lead.model, round, file, customIds: p.ids };
        await this.ledger.record({ event: 'prepared', ...submission });
        this.result.submitted += p.ids.length;
        await this.complete(this.ledger.submissions.get(name)!, group);
      }),
    );
  }

  /** Uploads, creates, polls and loads one submission, from wherever the ledger says it got to. */
  private async complete(submission: Submission, group: QueueGroup): Promise<void> {
    let client = this.clients.get(group.id);
    if (!client) this.clients.set(group.id, (client = this.options.clientFor?.(group.lead) ?? group.lead.connect()));
    const label = `${group.lead.model}, round ${submission.round}`;
    if (!submission.batchId) await this.create(client, submission, group.lead, label);
    const batch = await this.awaitEnd(client, submission, group.lead, label);
    await this.load(client, submission, group, batch, label);
  }

  /** Uploads the submission's file (unless done before) and creates its batch, each step recorded in the ledger. */
  private async create(client: BatchClient, submission: Submission, queue: BatchQueue, label: string): Promise<void> {
    const uploadedBefore = submission.fileId !== undefined;
    if (!submission.fileId) {
      const path = join(this.ledger.dir, submission.file);
      if (!existsSync(path)) throw new Error(`batch: ${path} (listed in the ledger) is missing`);
      await this.ledger.record({ event: 'uploaded', submission: submission.submission, fileId: await client.upload(path) });
    }
    // Killed between creating the batch and recording it: the provider knows the batch by its input file.
    let batch = uploadedBefore ? await client.findByInputFile(submission.fileId!) : undefined;
    batch ??= await client.create(submission.fileId!, queue.settings.completionWindow, { hisrag_submission: submission.submission });
    await this.ledger.record({ event: 'created', submission: submission.submission, batchId: batch.id });
    this.options.log(`batch ${batch.id} (${label}): ${submission.customIds.length} requests submitted`);
  }

  /** Polls the submission's batch until it ends, logging each change of state with an estimate of the time left. */
  private async awaitEnd(client: BatchClient, submission: Submission, queue: BatchQueue, label: string): Promise<BatchStatus> {
    const started = Date.now();
    let last = '';
    for (;;) {
      this.stopIfAborted();
      const batch = await client.retrieve(submission.batchId!);
      const { total, completed, failed } = batch.counts;
      const state = `${batch.status} ${completed}/${total || submission.customIds.length} done${failed ? `, ${failed} failed` : ''}`;
      if (state !== last) {
        const rate = completed / Math.max(1, (Date.now() - started) / 1000);
        const left = (total || submission.customIds.length) - completed - failed;
        const eta = completed > 0 && left > 0 && !TERMINAL_STATUSES.has(batch.status) ? `, about ${Math.ceil(left / rate)} s left` : '';
        this.options.log(`batch ${batch.id} (${label}): ${state}${eta}`);
        last = state;
      }
      if (TERMINAL_STATUSES.has(batch.status)) return batch;
      try {
        await sleep(queue.settings.pollMs, this.options.signal);
      } catch {
        this.stopIfAborted();
      }
    }
  }

  /** Loads an ended batch's answers into the response cache and records in the ledger and the queues what was answered and what failed. */
  private async load(client: BatchClient, submission: Submission, group: QueueGroup, batch: BatchStatus, label: string): Promise<void> {
    const queue = group.lead;
    // A line the provider's file holds but that cannot be read is named; its request is then "not in the output" and asked again.
    const readFileOf = async (fileId: string | undefined, kind: string) => {
      if (!fileId) return [];
      const parsed = parseBatchOutput(await client.download(fileId));
      for (const bad of parsed.unreadable) this.options.log(`batch ${batch.id} ${kind} file ${fileId}:${bad.line}: unreadable, left for the next round (${bad.message})`);
      return parsed.lines;
    };
    const output = await readFileOf(batch.outputFileId, 'output');
    const errors = await readFileOf(batch.errorFileId, 'error');
    if (output.length) await atomicWrite(join(this.ledger.dir, submission.file.replace(/\.jsonl$/, '-output.jsonl')), output.map(({ lineNumber: _, ...l }) => JSON.stringify(l)).join('\n') + '\n');
    const loaded = loadOutput(queue, submission.customIds, output, errors, batch);
    queue.cache.putMany(loaded.results.map(([key, res]) => [key, queue.model, res] as [string, string, GenerationResult]));
    await this.ledger.record({
      event: 'finished',
      submission: submission.submission,
      status: batch.status,
      answered: loaded.results.map(([key]) => key),
      failed: [...loaded.failed].map(([customId, f]) => ({ customId, message: f.message, ...(f.empty ? { empty: true } : {}) })),
    });
    for (const q of group.queues) q.recordFinished(submission.customIds, loaded.results.map(([key]) => key), loaded.failed);
    this.result.answered += loaded.results.length;
    this.result.failed += loaded.failed.size;
    const again = loaded.failed.size ? `; ${loaded.failed.size} failed (${queue.settings.fallback === 'live' ? 'answered live' : 'resubmitted while retries last'}: ${[...loaded.failed.values()][0]!.message})` : '';
    this.options.log(`batch ${batch.id} (${label}): ${batch.status}, ${loaded.results.length} answers loaded into the response cache${again}`);
  }
}

/** Splits a finished batch's lines into answers (parsed as the generator parses a live reply) and failures. */
export function loadOutput(
  queue: Pick<BatchQueue, 'parseCompletion'>,
  customIds: string[],
  output: BatchOutputLine[],
  errors: BatchOutputLine[],
  batch: Pick<BatchStatus, 'status' | 'errors'>,
): { results: [string, GenerationResult][]; failed: Map<string, BatchFailure> } {
  const wanted = new Set(customIds);
  const results: [string, GenerationResult][] = [];
  const answered = new Set<string>();
  const failed = new Map<string, BatchFailure>();
  const lineFailure = (line: BatchOutputLine): BatchFailure => ({ message: lineFailureMessage(line) });
  for (const line of output) {
    if (!wanted.has(line.custom_id) || answered.has(line.custom_id)) continue;
    if (line.response && isAnsweredLine(line)) {
      try {
        results.push([line.custom_id, queue.parseCompletion(line.response.body)]);
        answered.add(line.custom_id);
        failed.delete(line.custom_id);
      } catch (error) {
        const message = (error as Error).message;
        failed.set(line.custom_id, { message, ...(/empty/.test(message) ? { empty: true } : {}) });
      }
    } else {
      failed.set(line.custom_id, lineFailure(line));
    }
  }
  for (const line of errors) if (wanted.has(line.custom_id) && !answered.has(line.custom_id)) failed.set(line.custom_id, lineFailure(line));
  const why = batch.errors.length ? `: ${batch.errors.join('; ')}` : '';
  for (const id of customIds) {
    if (!answered.has(id) && !failed.has(id)) failed.set(id, { message: `not in the output of a batch that ended ${batch.status}${why}` });
  }
  return { results, failed };
}
