import { existsSync } from 'node:fs';
import { mkdir, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { readAppendLog } from '../io/jsonl.js';
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
import { readVersionedJson, type VersionedFormat } from './versionedFile.js';

export function labelsDir(runDir: string): string {
  return join(runDir, LABELS_DIR);
}

/** `labels/<annotator>.jsonl`; the name is checked so it can never leave the labels folder. */
export function labelFile(runDir: string, annotator: string): string {
  const parsed = AnnotatorSchema.safeParse(annotator);
  if (!parsed.success) throw new InputError(`annotator "${annotator}": ${parsed.error.issues[0]?.message ?? 'invalid name'}`);
  return join(labelsDir(runDir), `${annotator}.jsonl`);
}

/** Every line of an annotator's file in file order (history included); a torn last line is left out. */
export async function readLabelHistory(runDir: string, annotator: string): Promise<AnswerLabel[]> {
  return readAppendLog(labelFile(runDir, annotator), AnswerLabelSchema);
}

/** An annotator's labels, one per answer: a later line for the same key replaces an earlier one (keeping its first position). */
export async function readLabels(runDir: string, annotator: string): Promise<AnswerLabel[]> {
  return latestPerKey(await readLabelHistory(runDir, annotator));
}

export function latestPerKey(labels: readonly AnswerLabel[]): AnswerLabel[] {
  const byKey = new Map<string, AnswerLabel>();
  for (const label of labels) byKey.set(label.key, label);
  return [...byKey.values()];
}

/** The annotators that have a label file in the run, sorted by name. */
export async function listAnnotators(runDir: string): Promise<string[]> {
  const dir = labelsDir(runDir);
  if (!existsSync(dir)) return [];
  return (await readdir(dir))
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => name.slice(0, -'.jsonl'.length))
    .filter((name) => AnnotatorSchema.safeParse(name).success)
    .sort();
}

/** Every annotator's labels (latest per answer), by annotator. */
export async function readAllLabels(runDir: string): Promise<Map<string, AnswerLabel[]>> {
  const out = new Map<string, AnswerLabel[]>();
  for (const annotator of await listAnnotators(runDir)) out.set(annotator, await readLabels(runDir, annotator));
  return out;
}

/**
 * Appends labels to the annotator's file as whole lines in one write, then fsyncs. A torn last line
 * left by a crash is cut off first, so the new lines never join it. One writer per file: callers
 * that write from several requests (the viewer) queue their appends per file.
 */
export async function appendLabels(runDir: string, annotator: string, labels: readonly AnswerLabel[]): Promise<void> {
  if (labels.length === 0) return;
  const file = labelFile(runDir, annotator);
  for (const label of labels) {
    if (label.annotator !== annotator) throw new InputError(`label for ${label.key} names annotator "${label.annotator}", not "${annotator}"`);
    AnswerLabelSchema.parse(label);
  }
  await mkdir(labelsDir(runDir), { recursive: true });
  if (existsSync(file)) await readAppendLog(file, AnswerLabelSchema, { repair: true });
  const handle = await open(file, 'a');
  try {
    await handle.write(labels.map((label) => JSON.stringify(label) + '\n').join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const SAMPLE_FORMAT: VersionedFormat<LabelSample> = {
  version: LABEL_FILE_VERSION,
  current: LabelSampleSchema,
  legacy: LabelSampleSchema,
  upgrade: (old) => old as LabelSample,
};

export function labelSampleFile(runDir: string): string {
  return join(labelsDir(runDir), LABEL_SAMPLE_FILE);
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
