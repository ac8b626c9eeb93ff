import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { readJsonFile } from '../io/jsonText.js';
import { BuildInputsSchema, type BuildInputs } from './buildInputs.js';

/** Sidecar in a model directory: the last computed fingerprint and the size+mtime of the files it covers. */
export const FINGERPRINT_SIDECAR = '.hisrag-fingerprint.json';
/** What a generated (fixture) model was built from; a dot file, left out when an index hashes the model folder it embeds with. */
const MODEL_INPUTS_FILE = '.hisrag-inputs.json';

const FingerprintSidecarSchema = z.object({ fingerprint: z.string(), files: z.record(z.string(), z.object({ size: z.number(), mtimeMs: z.number() })) });
export type FingerprintSidecar = z.infer<typeof FingerprintSidecarSchema>;

/** The sidecar; undefined when absent or damaged: only a cache of a hash of the model's files, so it is recomputed, never refused. */
export async function readFingerprintSidecar(dir: string): Promise<FingerprintSidecar | undefined> {
  const parsed = await readFile(join(dir, FINGERPRINT_SIDECAR), 'utf8')
    .then((raw) => FingerprintSidecarSchema.safeParse(JSON.parse(raw)))
    .catch(() => undefined);
  return parsed?.success ? parsed.data : undefined;
}

/** Writes the sidecar; a read-only model directory (a shared hub cache) is fine: the next process re-hashes. */
export async function writeFingerprintSidecar(dir: string, sidecar: FingerprintSidecar): Promise<void> {
  await atomicWriteJson(join(dir, FINGERPRINT_SIDECAR), sidecar).catch(() => undefined);
}

/** A generated model's recorded build inputs; undefined when never generated, a DataFileError naming file and field when damaged. */
export function readModelInputs(dir: string): BuildInputs | undefined {
  return readJsonFile(join(dir, MODEL_INPUTS_FILE), BuildInputsSchema);
}

export async function writeModelInputs(dir: string, inputs: BuildInputs): Promise<void> {
  await atomicWriteJson(join(dir, MODEL_INPUTS_FILE), inputs);
}

/** The `hisrag_fixture` record of a generated model's config.json (written by `hisrag model fixture`): which stand-in it is. */
const FixtureRecordSchema = z.object({ kind: z.string(), seed: z.number(), note: z.string().optional() });
export type FixtureRecord = z.infer<typeof FixtureRecordSchema>;

/** A model directory's fixture record; undefined for any other model (a name, no or another config.json): it only labels printed lines. */
export function readFixtureRecord(dir: string): FixtureRecord | undefined {
  try {
    const parsed = FixtureRecordSchema.safeParse((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { hisrag_fixture?: unknown }).hisrag_fixture);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
