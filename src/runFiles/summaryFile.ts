import { z } from 'zod';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { runFile } from './runDir.js';
import { RunSummarySchema, type RunSummary } from './summary.js';
import { parseVersionedJson, readVersionedJson, type VersionedFormat } from './versionedFile.js';

/** summary.json's version: 1 since files carry one (unversioned files, from before, have the same fields). */
export const SUMMARY_VERSION = 1;
export const SummaryFileSchema = RunSummarySchema.extend({ version: z.literal(SUMMARY_VERSION) });

const SUMMARY_FORMAT: VersionedFormat<z.infer<typeof SummaryFileSchema>, RunSummary> = {
  version: SUMMARY_VERSION,
  current: SummaryFileSchema,
  legacy: RunSummarySchema,
  upgrade: (old) => old as RunSummary,
};

const withoutVersion = (read: RunSummary & { version?: number }): RunSummary => {
  const { version: _version, ...summary } = read;
  return summary;
};

/** Validates summary.json's text (`file` names it in errors). */
export function parseRunSummary(file: string, text: string): RunSummary {
  return withoutVersion(parseVersionedJson(file, text, SUMMARY_FORMAT));
}

/** A run directory's summary.json; undefined when the run has none (yet). A damaged or hand-edited file is an error naming the file and field. */
export async function readRunSummaryFile(runDir: string): Promise<RunSummary | undefined> {
  const read = await readVersionedJson(runFile(runDir, 'summary'), SUMMARY_FORMAT);
  return read && withoutVersion(read);
}

/** Writes summary.json at today's version. */
export async function writeRunSummary(runDir: string, summary: RunSummary): Promise<void> {
  const file: z.infer<typeof SummaryFileSchema> = { version: SUMMARY_VERSION, ...summary };
  await atomicWriteJson(runFile(runDir, 'summary'), file);
}
