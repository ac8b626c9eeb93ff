import { runFile } from './runDir.js';
import { RunSummarySchema, type RunSummary } from './summary.js';
import { firstVersionFile } from './versionedFile.js';

/** summary.json's version: 1 since files carry one (unversioned files, from before, have the same fields). */
export const SUMMARY_VERSION = 1;
const summaryFile = firstVersionFile(RunSummarySchema);
export const SummaryFileSchema = summaryFile.schema;

/** Validates summary.json's text (`file` names it in errors). */
export const parseRunSummary = (file: string, text: string): RunSummary => summaryFile.parse(file, text);

/** A run directory's summary.json; undefined when the run has none (yet). A damaged or hand-edited file is an error naming the file and field. */
export const readRunSummaryFile = (runDir: string): Promise<RunSummary | undefined> => summaryFile.read(runFile(runDir, 'summary'));

/** Writes summary.json at today's version. */
export const writeRunSummary = (runDir: string, summary: RunSummary): Promise<void> => summaryFile.write(runFile(runDir, 'summary'), summary);
