import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { z } from 'zod';
import { formatZodIssues } from '../config/errors.js';
import { DataFileError } from '../errors.js';

/** The Batch API endpoint a queue submits to. */
export interface BatchEndpoint {
  /** API root (`…/v1`) the Batch API calls go to: the first replica of a pool. */
  baseURL: string;
  apiKey?: string;
  headers: Record<string, string>;
}

/** A batch's state as the provider reports it. */
export interface BatchStatus {
  id: string;
  status: 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';
  inputFileId: string;
  outputFileId?: string;
  errorFileId?: string;
  counts: { total: number; completed: number; failed: number };
  /** Why the whole batch failed (validation), when it did. */
  errors: string[];
}

export const TERMINAL_STATUSES: ReadonlySet<BatchStatus['status']> = new Set(['failed', 'completed', 'expired', 'cancelled']);

/** One line of a Batch API output or error file. */
export const BatchOutputLineSchema = z.looseObject({
  custom_id: z.string().min(1),
  response: z
    .looseObject({ status_code: z.number().int(), body: z.unknown() })
    .nullable()
    .optional(),
  error: z.looseObject({ code: z.string().nullable().optional(), message: z.string().nullable().optional() }).nullable().optional(),
});
export type BatchOutputLine = z.infer<typeof BatchOutputLineSchema>;

/** Parses a Batch API output (or `vllm run-batch` output) file's text; errors name the file and line. */
export function parseBatchOutput(text: string, source: string): BatchOutputLine[] {
  const lines: BatchOutputLine[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new DataFileError(`${source}:${i + 1}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = BatchOutputLineSchema.safeParse(value);
    if (!parsed.success) throw new DataFileError(`${source}:${i + 1}: ${formatZodIssues(parsed.error)}`);
    lines.push(parsed.data);
  }
  return lines;
}

/**
 * OpenAI's Batch API (also DashScope's OpenAI-compatible mode) through the official `openai` SDK:
 * upload a JSONL file with purpose `batch`, create the batch on `/v1/chat/completions`, poll it,
 * download its output and error files. The SDK retries its own calls (connection errors, 429, 5xx).
 */
export class BatchClient {
  readonly #client: OpenAI;

  constructor(endpoint: BatchEndpoint, options: { fetch?: typeof fetch } = {}) {
    this.#client = new OpenAI({
      baseURL: endpoint.baseURL,
      apiKey: endpoint.apiKey ?? 'no-key',
      defaultHeaders: endpoint.headers,
      maxRetries: 5,
      timeout: 600_000,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  async upload(path: string): Promise<string> {
    const file = await this.#client.files.create({ file: await toFile(await readFile(path), basename(path)), purpose: 'batch' });
    return file.id;
  }

  async create(inputFileId: string, completionWindow: string, metadata: Record<string, string>): Promise<BatchStatus> {
    const batch = await this.#client.batches.create({
      input_file_id: inputFileId,
      endpoint: '/v1/chat/completions',
      completion_window: completionWindow as '24h',
      metadata,
    });
    return statusOf(batch);
  }

  async retrieve(batchId: string): Promise<BatchStatus> {
    return statusOf(await this.#client.batches.retrieve(batchId));
  }

  /** The batch created from this input file, if one was (a run killed right after creating it has not recorded its id). */
  async findByInputFile(inputFileId: string): Promise<BatchStatus | undefined> {
    for await (const batch of this.#client.batches.list({ limit: 100 })) {
      if (batch.input_file_id === inputFileId) return statusOf(batch);
    }
    return undefined;
  }

  async download(fileId: string): Promise<string> {
    const response = await this.#client.files.content(fileId);
    return response.text();
  }
}

function statusOf(batch: OpenAI.Batches.Batch): BatchStatus {
  return {
    id: batch.id,
    status: batch.status,
    inputFileId: batch.input_file_id,
    ...(batch.output_file_id ? { outputFileId: batch.output_file_id } : {}),
    ...(batch.error_file_id ? { errorFileId: batch.error_file_id } : {}),
    counts: { total: batch.request_counts?.total ?? 0, completed: batch.request_counts?.completed ?? 0, failed: batch.request_counts?.failed ?? 0 },
    errors: (batch.errors?.data ?? []).map((e) => [e.code, e.message, e.line ? `line ${e.line}` : ''].filter(Boolean).join(': ')),
  };
}
