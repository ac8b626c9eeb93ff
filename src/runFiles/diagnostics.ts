import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { readAppendLog } from '../io/jsonl.js';
import { readJsonFile } from '../io/jsonText.js';
import { DiagnosticsCostSchema, RecordDiagnosticsSchema } from './diagnosis.js';
import type { RunItemRecord } from './itemRecord.js';

/** The diagnostics stage's files in a run directory. */
export const DIAGNOSTICS_FILES = {
  /** The settings of the last diagnosis and its totals. */
  state: 'diagnostics.json',
  /** One line per diagnosed answer, appended as each finishes: what a resumed diagnosis keeps. */
  records: 'diagnostics.jsonl',
  /** Every extraction and label (SQLite), unless `diagnostics.cache` names another file. */
  cache: 'diagnostics-cache.sqlite',
} as const;

export const diagnosticsFile = (runDir: string, name: keyof typeof DIAGNOSTICS_FILES) => join(runDir, DIAGNOSTICS_FILES[name]);

/** diagnostics.json. */
export const DiagnosticsStateSchema = z.object({
  /** Identifies what the per-answer diagnoses depend on (extractor, checker, prefilter): lines of another fingerprint are redone. */
  fingerprint: z.string(),
  settings: z.object({
    baseline: z.string(),
    delta: z.number().nullable(),
    prefilter: z.enum(['hybrid', 'relevance', 'lexical', 'none']),
    topChunks: z.number().int().positive(),
    extractor: z.record(z.string(), z.unknown()),
    checker: z.record(z.string(), z.unknown()),
    /** The prefilter's scorer per retriever label: `relevance` or `lexical` (and why, where it fell back). */
    scorers: z.record(z.string(), z.string()),
    conditions: z.array(z.string()).nullable(),
  }),
  complete: z.boolean(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  totals: z.object({ diagnosed: z.number().int(), withFailedChecks: z.number().int(), toDiagnose: z.number().int() }).optional(),
  /** What the diagnoses of this run directory sent, summed over every line of diagnostics.jsonl (a resumed diagnosis sends only what was not done or cached). */
  spent: z
    .object({ extractorCalls: z.number(), checkerCalls: z.number(), promptTokens: z.number(), completionTokens: z.number(), estimatedTokens: z.boolean() })
    .optional(),
});
export type DiagnosticsState = z.infer<typeof DiagnosticsStateSchema>;

/** Bumped when a record's diagnosis changes shape: lines of another format are diagnosed again. */
export const DIAGNOSTICS_FORMAT = 2;

/** One line of diagnostics.jsonl. */
export const DiagnosticsLineSchema = z.object({ key: z.string(), fingerprint: z.string(), diagnostics: RecordDiagnosticsSchema });
export type DiagnosticsLine = z.infer<typeof DiagnosticsLineSchema>;

/**
 * A line as read: a line of another format (or settings) is not an error but is redone, so only a
 * line whose fingerprint is the one its record has now (`current`) must hold a valid diagnosis — a
 * damaged one is refused, naming the field, rather than read as undiagnosed.
 */
function lineSchema(current: ReadonlyMap<string, string>) {
  return z.object({ key: z.string(), fingerprint: z.string(), diagnostics: z.unknown() }).transform((line, ctx) => {
    const parsed = RecordDiagnosticsSchema.safeParse(line.diagnostics);
    if (parsed.success) return { ...line, diagnostics: parsed.data };
    if (current.get(line.key) !== line.fingerprint) return { ...line, diagnostics: null };
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['diagnostics', ...issue.path], message: issue.message });
    return z.NEVER;
  });
}

/** What one answer's diagnosis depends on: the settings and the answer (response, passages, question). */
export function recordFingerprint(settingsFingerprint: string, record: RunItemRecord): string {
  return createHash('sha256')
    .update(JSON.stringify([settingsFingerprint, record.key, record.question, record.response?.text ?? null, record.contextIds, record.retrieved.map((c) => [c.id, c.rank])]))
    .digest('hex')
    .slice(0, 32);
}

/** diagnostics.json; undefined for a run never diagnosed. */
export async function readDiagnosticsState(runDir: string): Promise<DiagnosticsState | undefined> {
  return readJsonFile(diagnosticsFile(runDir, 'state'), DiagnosticsStateSchema);
}

/**
 * Reads diagnostics.jsonl, the last line of a key winning; a torn last line is cut with `repair`, else
 * ignored. `current` (key → the fingerprint its record has now): those lines must be valid.
 */
export async function readDiagnosticsLines(runDir: string, options: { repair?: boolean; current?: ReadonlyMap<string, string> } = {}): Promise<Map<string, DiagnosticsLine>> {
  const out = new Map<string, DiagnosticsLine>();
  for (const line of await readAppendLog(diagnosticsFile(runDir, 'records'), lineSchema(options.current ?? new Map()), options)) {
    if (line.diagnostics) out.set(line.key, { ...line, diagnostics: line.diagnostics });
    else out.delete(line.key);
  }
  return out;
}

/** A cost's sent figures, 0 where a line of another format lacks them. */
const SentSchema = DiagnosticsCostSchema.pick({ extractorCallsSent: true, checkerCallsSent: true, promptTokensSent: true, completionTokensSent: true, estimatedTokensSent: true })
  .partial()
  .catch({});
const SentLineSchema = z.object({ diagnostics: z.object({ diagnosticsCost: SentSchema }).nullable().catch(null) });

/** What the diagnoses in diagnostics.jsonl sent, superseded lines included (their calls were sent too). */
export async function sentTotals(runDir: string): Promise<NonNullable<DiagnosticsState['spent']>> {
  const totals = { extractorCalls: 0, checkerCalls: 0, promptTokens: 0, completionTokens: 0, estimatedTokens: false };
  for (const line of await readAppendLog(diagnosticsFile(runDir, 'records'), SentLineSchema)) {
    const cost = line.diagnostics?.diagnosticsCost ?? {};
    totals.extractorCalls += cost.extractorCallsSent ?? 0;
    totals.checkerCalls += cost.checkerCallsSent ?? 0;
    totals.promptTokens += cost.promptTokensSent ?? 0;
    totals.completionTokens += cost.completionTokensSent ?? 0;
    totals.estimatedTokens ||= cost.estimatedTokensSent === true;
  }
  return totals;
}

/** Each record with the diagnosis in diagnostics.jsonl whose fingerprint matches it as it is now (none for one answered again since). */
export async function attachDiagnostics(runDir: string, records: RunItemRecord[], state: DiagnosticsState): Promise<RunItemRecord[]> {
  const current = new Map(records.map((record) => [record.key, recordFingerprint(state.fingerprint, record)]));
  const lines = await readDiagnosticsLines(runDir, { current });
  return records.map((record) => {
    const line = lines.get(record.key);
    const { diagnostics: _stale, ...rest } = record;
    if (line && line.fingerprint === current.get(record.key)) return { ...rest, diagnostics: line.diagnostics };
    return rest;
  });
}
