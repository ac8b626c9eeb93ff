import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { readAppendLog } from '../io/jsonl.js';
import { DataFileError, parseWith } from '../errors.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { RecordDiagnosticsSchema, type RecordDiagnostics } from '../runFiles/diagnosis.js';
import { join } from 'node:path';
import { z } from 'zod';

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

const LogLineSchema = z.object({
  key: z.string(),
  fingerprint: z.string(),
  // A line of another format is not an error: it is redone (its fingerprint no longer matches either).
  diagnostics: RecordDiagnosticsSchema.nullable().catch(null),
});

export const DiagnosticsLineSchema = LogLineSchema.extend({ diagnostics: RecordDiagnosticsSchema });
export type DiagnosticsLine = z.infer<typeof DiagnosticsLineSchema>;

/** What one answer's diagnosis depends on: the settings and the answer (response, passages, question). */
export function recordFingerprint(settingsFingerprint: string, record: RunItemRecord): string {
  return createHash('sha256')
    .update(JSON.stringify([settingsFingerprint, record.key, record.question, record.response?.text ?? null, record.contextIds, record.retrieved.map((c) => [c.id, c.rank])]))
    .digest('hex')
    .slice(0, 32);
}

export async function readDiagnosticsState(runDir: string): Promise<DiagnosticsState | undefined> {
  const path = diagnosticsFile(runDir, 'state');
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    throw new DataFileError(`${path}: not valid JSON`);
  }
  return parseWith(DiagnosticsStateSchema, value, (problems) => new DataFileError(`${path}: ${problems}`));
}

/** Reads diagnostics.jsonl, the last line of a key winning; a torn last line is cut with `repair`, else ignored. */
export async function readDiagnosticsLines(runDir: string, options: { repair?: boolean } = {}): Promise<Map<string, DiagnosticsLine>> {
  const out = new Map<string, DiagnosticsLine>();
  for (const line of await readAppendLog(diagnosticsFile(runDir, 'records'), LogLineSchema, options)) {
    if (line.diagnostics) out.set(line.key, line as DiagnosticsLine);
    else out.delete(line.key);
  }
  return out;
}

/** What the diagnoses in diagnostics.jsonl sent, superseded lines included (their calls were sent too). */
export async function sentTotals(runDir: string): Promise<NonNullable<DiagnosticsState['spent']>> {
  const totals = { extractorCalls: 0, checkerCalls: 0, promptTokens: 0, completionTokens: 0, estimatedTokens: false };
  const path = diagnosticsFile(runDir, 'records');
  if (!existsSync(path)) return totals;
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    let cost: Record<string, unknown> | undefined;
    try {
      cost = (JSON.parse(line) as { diagnostics?: { diagnosticsCost?: Record<string, unknown> } }).diagnostics?.diagnosticsCost;
    } catch {
      continue; // a torn last line
    }
    const num = (key: string) => (typeof cost?.[key] === 'number' ? (cost[key] as number) : 0);
    totals.extractorCalls += num('extractorCallsSent');
    totals.checkerCalls += num('checkerCallsSent');
    totals.promptTokens += num('promptTokensSent');
    totals.completionTokens += num('completionTokensSent');
    totals.estimatedTokens ||= cost?.estimatedTokensSent === true;
  }
  return totals;
}

/** Each record with the diagnosis whose fingerprint matches it as it is now (none for one answered again since). */
export function attachDiagnostics(records: RunItemRecord[], state: DiagnosticsState, lines: Map<string, DiagnosticsLine>): RunItemRecord[] {
  return records.map((record) => {
    const line = lines.get(record.key);
    const { diagnostics: _stale, ...rest } = record;
    if (line && line.fingerprint === recordFingerprint(state.fingerprint, record)) return { ...rest, diagnostics: line.diagnostics as RecordDiagnostics };
    return rest;
  });
}
