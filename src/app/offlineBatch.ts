import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ExperimentConfig } from '../config/experiment.js';
import { InputError } from '../errors.js';
import { atomicWrite } from '../io/atomicWrite.js';
import { planConditions } from '../experiment/plan.js';
import { prepareArtefacts } from './prepare.js';
import { buildStages } from '../experiment/stages.js';
import { collectRound, createTaskContext, gridTasks } from '../experiment/taskContext.js';
import { parseChatCompletion } from '../generation/openai.js';
import { openResponseCache } from '../generation/responseCache.js';
import type { GenerationResult } from '../generation/types.js';
import { isAnsweredLine, lineFailureMessage, parseBatchOutput, type UnreadableLine } from '../endpoints/batchClient.js';

/** One requests file `hisrag batch export` wrote. */
export interface ExportedFile {
  file: string;
  model: string;
  requests: number;
  /** The response cache its answers are to be imported into. */
  cache: string;
}

const slug = (text: string) => text.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'model';

/**
 * `hisrag batch export`: for every generator with a response cache, the next round's requests the
 * cache cannot answer yet, as Batch API JSONL (the input of `vllm run-batch` on an offline GPU box).
 */
export async function exportBatchRequests(config: ExperimentConfig, options: { out: string; log?: (line: string) => void; progress?: boolean }): Promise<ExportedFile[]> {
  const log = options.log ?? (() => {});
  await prepareArtefacts(config, { log, progress: options.progress ?? false });
  const stages = await buildStages(config);
  try {
    const queues = stages.batchQueues({ all: true });
    if (queues.length === 0) {
      throw new InputError(`${config.name}: no model, judge or extractor of this config has a response cache (cache: <file>, or batch: true, on an openai generator); the answers of an offline batch are imported into one`);
    }
    const conditions = planConditions(config, (spec, path) => stages.method(spec, path));
    const tasks = gridTasks(stages, conditions);
    const context = createTaskContext(stages, conditions, tasks);
    for (const queue of queues) {
      queue.mode = 'collect';
      queue.pending.clear();
    }
    try {
      await collectRound({ stages, config, tasks, context, label: 'requests collected', progress: options.progress ?? false });
      await mkdir(options.out, { recursive: true });
      const written: ExportedFile[] = [];
      const seen = new Set<string>();
      for (const queue of queues) {
        const lines = [...queue.pending.values()].filter((line) => !seen.has(`${queue.id}|${line.custom_id}`));
        for (const line of lines) seen.add(`${queue.id}|${line.custom_id}`);
        if (lines.length === 0) continue;
        const file = resolve(join(options.out, `${slug(queue.model)}-${queue.id}.jsonl`));
        await atomicWrite(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
        written.push({ file, model: queue.model, requests: lines.length, cache: resolve(queue.cache.path) });
      }
      return written;
    } finally {
      for (const queue of queues) {
        queue.mode = 'answer';
        queue.pending.clear();
      }
    }
  } finally {
    await stages.close();
  }
}

export interface ImportResult {
  imported: number;
  /** Lines that say their request failed (any producer's error shape): not stored, so the next export asks them again. */
  failed: { customId: string; line: number; message: string }[];
  /** Lines that could not be read at all (not JSON, no custom_id …): named, and left for the next export. */
  unreadable: UnreadableLine[];
}

/**
 * `hisrag batch import`: each answered line into the response cache under its custom_id (its cache
 * key). Failed lines (any producer's error shape) and unreadable ones are reported, not stored: the
 * next export asks them again, and one bad line never keeps the others out.
 */
export async function importBatchOutput(file: string, cachePath: string): Promise<ImportResult> {
  const { lines, unreadable } = parseBatchOutput(await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`${file}: cannot read (${error.code ?? error.message})`);
  }));
  const results: [string, string, GenerationResult][] = [];
  const failed: ImportResult['failed'] = [];
  for (const line of lines) {
    if (isAnsweredLine(line)) {
      try {
        const body = line.response!.body as { model?: string };
        results.push([line.custom_id, body?.model ?? 'unknown', parseChatCompletion(body)]);
      } catch (error) {
        failed.push({ customId: line.custom_id, line: line.lineNumber, message: (error as Error).message });
      }
    } else {
      failed.push({ customId: line.custom_id, line: line.lineNumber, message: lineFailureMessage(line) });
    }
  }
  openResponseCache(cachePath).putMany(results);
  return { imported: results.length, failed, unreadable };
}
