import { Worker } from 'node:worker_threads';
import { wikitextToArticle, type ParsedArticle, type WikitextOptions } from './wikitextToArticle.js';

interface PendingJob {
  resolve(article: ParsedArticle): void;
  reject(error: Error): void;
}

/**
 * Parses wikitext in worker threads (parsing and simplification are the larger part of a dump
 * build: ~14 MB/s per core with the fast parser, ~3 with wtf_wikipedia, against ~60 for the XML).
 * Each job goes to the worker with the fewest jobs in flight.
 * With `size` 0 it parses in the calling thread.
 */
export class WikitextParserPool {
  private readonly workers: { worker: Worker; inFlight: Map<number, PendingJob> }[] = [];
  private nextId = 0;
  private failure: Error | undefined;

  constructor(size: number, private readonly options: WikitextOptions) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('./parseWorker.boot.mjs', import.meta.url), { workerData: options });
      const entry = { worker, inFlight: new Map<number, PendingJob>() };
      worker.on('message', (message: { id: number; article?: ParsedArticle; error?: string }) => {
        const job = entry.inFlight.get(message.id);
        if (!job) return;
        entry.inFlight.delete(message.id);
        if (message.article) job.resolve(message.article);
        else job.reject(new Error(message.error ?? 'wikitext parser failed'));
      });
      const failAll = (error: Error) => {
        this.failure ??= error;
        for (const job of entry.inFlight.values()) job.reject(error);
        entry.inFlight.clear();
      };
      worker.on('error', failAll);
      worker.on('exit', (code) => {
        if (code !== 0) failAll(new Error(`wikitext parser worker exited with code ${code}`));
      });
      this.workers.push(entry);
    }
  }

  /** Set when a worker crashed (as opposed to one page failing to parse). */
  get failed(): Error | undefined {
    return this.failure;
  }

  parse(wikitext: string): Promise<ParsedArticle> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.workers.length === 0) {
      try {
        return Promise.resolve(wikitextToArticle(wikitext, this.options));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    const entry = this.workers.reduce((a, b) => (b.inFlight.size < a.inFlight.size ? b : a));
    const id = this.nextId++;
    return new Promise<ParsedArticle>((resolve, reject) => {
      entry.inFlight.set(id, { resolve, reject });
      entry.worker.postMessage({ id, wikitext });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
    this.workers.length = 0;
  }
}
