import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { z } from 'zod';
import { formatZodIssues } from '../errors.js';
import { jsonlEntries } from '../io/jsonl.js';

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

/**
 * A failed line's `error`, as each producer writes it, read into one `{ code, message }`:
 *   OpenAI, DashScope       `{ code: "batch_expired", message: "…" }`;
 *   vllm run-batch, a request that raised (`make_error_request_output(request, str(e))`)
 *                           a plain string, beside `response: { status_code: 400, body: null }`;
 *   vllm run-batch, the server's ErrorResponse
 *                           `{ object: "error", message, type, param, code: 400 }` (older releases) or
 *                           `{ error: { message, type, param, code: 400 } }` (newer), codes integers.
 * Anything else there is still a failure, its JSON the message: a line that says it failed is never an answer.
 */
const ErrorFieldsSchema = z.looseObject({
  code: z.union([z.string(), z.number()]).nullable().optional(),
  message: z.string().nullable().optional(),
  type: z.string().nullable().optional(),
});
export const BatchLineErrorSchema = z.unknown().transform((value): { code?: string; message: string } | null => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return { message: value || 'an empty error' };
  // vLLM's newer ErrorResponse nests the fields under `error`; the others carry them at the top.
  const nested = ErrorFieldsSchema.safeParse((value as { error?: unknown }).error);
  const outer = ErrorFieldsSchema.safeParse(value);
  const fields = nested.success ? nested.data : outer.success ? outer.data : undefined;
  if (!fields || (fields.message == null && fields.code == null)) return { message: JSON.stringify(value) };
  const message = fields.message ?? fields.type ?? 'no message';
  return fields.code != null ? { code: String(fields.code), message } : { message };
});

/** One line of a Batch API output or error file. */
export const BatchOutputLineSchema = z.looseObject({
  custom_id: z.string().min(1),
  response: z
    .looseObject({ status_code: z.number().int(), body: z.unknown() })
    .nullable()
    .optional(),
  error: BatchLineErrorSchema.optional(),
});
export type BatchOutputLine = z.output<typeof BatchOutputLineSchema>;

/** A line of an output file that could not be read (not JSON, no custom_id …): named, never in the way of the others. */
export interface UnreadableLine {
  /** 1-based line number in the file. */
  line: number;
  message: string;
}

export interface ParsedBatchOutput {
  /** Each readable line, with its 1-based line number in the file. */
  lines: (BatchOutputLine & { lineNumber: number })[];
  unreadable: UnreadableLine[];
}

/**
 * Parses a Batch API output (or `vllm run-batch` output) file's text. Every line that parses is kept;
 * one that does not is listed with its number and why, so a single bad line (a truncated copy, a
 * producer's new shape) never keeps the file's good answers out.
 */
export function parseBatchOutput(text: string): ParsedBatchOutput {
  const parsed: ParsedBatchOutput = { lines: [], unreadable: [] };
  for (const entry of jsonlEntries(text)) {
    if ('notJson' in entry) {
      parsed.unreadable.push({ line: entry.line, message: `not valid JSON (${entry.notJson})` });
      continue;
    }
    const result = BatchOutputLineSchema.safeParse(entry.value);
    if (result.success) parsed.lines.push({ ...result.data, lineNumber: entry.line });
    else parsed.unreadable.push({ line: entry.line, message: formatZodIssues(result.error) });
  }
  return parsed;
}

/** Why a line gave no answer: its error (any producer's shape), else the error in its response body, else its HTTP status. */
export function lineFailureMessage(line: BatchOutputLine): string {
  const bodyError = (line.response?.body as { error?: { message?: string } } | null | undefined)?.error?.message;
  const message = line.error?.message ?? bodyError ?? (line.response ? `HTTP ${line.response.status_code}` : 'no response');
  return line.error?.code ? `${line.error.code}: ${message}` : message;
}

/** True when a line holds an answer to read: HTTP 200 and no error. */
export const isAnsweredLine = (line: BatchOutputLine) => line.response?.status_code === 200 && !line.error;

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
