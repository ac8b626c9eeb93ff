import { parentPort, workerData } from 'node:worker_threads';
import { wikitextToArticle, type WikitextOptions } from './wikitextToArticle.js';

/** Worker side of WikitextParserPool: one message per page, answered with its id. */
const options = workerData as WikitextOptions;
parentPort!.on('message', (job: { id: number; wikitext: string }) => {
  try {
    parentPort!.postMessage({ id: job.id, article: wikitextToArticle(job.wikitext, options) });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: (error as Error).message ?? String(error) });
  }
});
