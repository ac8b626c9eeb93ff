import { join } from 'node:path';
import { InputError } from '../errors.js';
import { atomicWriteJson } from '../io/atomicWrite.js';
import {
  AnnotatorSchema,
  AnswerLabelSchema,
  LABEL_FILE_VERSION,
  LABEL_SAMPLE_FILE,
  LABELS_DIR,
  LabelSampleSchema,
  type AnswerLabel,
  type LabelSample,
} from './labels.js';
import { namedLogs } from './namedLogs.js';
import { readVersionedJson, type VersionedFormat } from './versionedFile.js';

const logs = namedLogs(LABELS_DIR, AnnotatorSchema, AnswerLabelSchema, 'annotator');

/** `labels/<annotator>.jsonl`; the name is checked so it can never leave the labels folder. */
export const labelFile = logs.file;
/** Every line of an annotator's file in file order (history included); a torn last line is left out. */
export const readLabelHistory = (runDir: string, annotator: string): Promise<AnswerLabel[]> => logs.history(runDir, annotator);
/** An annotator's labels, one per answer: a later line for the same key replaces an earlier one. */
export const readLabels = (runDir: string, annotator: string): Promise<AnswerLabel[]> => logs.latest(runDir, annotator);
/** The annotators that have a label file in the run, sorted by name. */
export const listAnnotators = logs.list;

/** Every annotator's labels (latest per answer), by annotator. */
export async function readAllLabels(runDir: string): Promise<Map<string, AnswerLabel[]>> {
  const out = new Map<string, AnswerLabel[]>();
  for (const annotator of await listAnnotators(runDir)) out.set(annotator, await readLabels(runDir, annotator));
  return out;
}

/** Appends labels to the annotator's file in one write (the viewer queues its appends per file). */
export async function appendLabels(runDir: string, annotator: string, labels: readonly AnswerLabel[]): Promise<void> {
  if (labels.length === 0) return;
  for (const label of labels) {
    if (label.annotator !== annotator) throw new InputError(`label for ${label.key} names annotator "${label.annotator}", not "${annotator}"`);
  }
  const log = await logs.open(runDir, annotator);
  try {
    await log.append(labels);
  } finally {
    await log.close();
  }
}

const SAMPLE_FORMAT: VersionedFormat<LabelSample> = {
  version: LABEL_FILE_VERSION,
  current: LabelSampleSchema,
  legacy: LabelSampleSchema,
  upgrade: (old) => old as LabelSample,
};

export function labelSampleFile(runDir: string): string {
  return join(runDir, LABELS_DIR, LABEL_SAMPLE_FILE);
}

/** `labels/sample.json`, or undefined when no sample was drawn. */
export async function readLabelSample(runDir: string): Promise<LabelSample | undefined> {
  return readVersionedJson(labelSampleFile(runDir), SAMPLE_FORMAT);
}

export async function writeLabelSample(runDir: string, sample: LabelSample): Promise<void> {
  await atomicWriteJson(labelSampleFile(runDir), LabelSampleSchema.parse(sample));
}

/** Every annotator's labels of a run, the latest per (annotator, answer); a run without labels reads as none. */
export async function readRunLabels(runDir: string): Promise<AnswerLabel[]> {
  return [...(await readAllLabels(runDir)).values()].flat();
}

/** Each drawn question's inclusion probability (item key → π) from `labels/sample.json`; undefined without a sample or one drawn before π was recorded. */
export async function readLabelInclusion(runDir: string): Promise<Map<string, number> | undefined> {
  const inclusion = (await readLabelSample(runDir))?.inclusion;
  return inclusion ? new Map(Object.entries(inclusion)) : undefined;
}
