import { z } from 'zod';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { runFile } from './runDir.js';
import { parseVersionedJson, readVersionedJson, type VersionedFormat } from './versionedFile.js';

/** manifest.json's version: 1 since files carry one (unversioned files, from before, may lack any field). */
export const MANIFEST_VERSION = 1;

const ManifestFields = {
  runId: z.string(),
  experiment: z.string(),
  hisragVersion: z.string(),
  /** The checkout's commit, null outside a git checkout. */
  gitCommit: z.string().nullable(),
  node: z.string(),
  configFile: z.string().nullable(),
  /** The first session's start (a resume keeps it). */
  startedAt: z.string(),
  /** Set when the run finished with every answer; null while it runs or after it stopped early. */
  finishedAt: z.string().nullable(),
  /** Each invocation (first run and every resume), so interruptions are visible. */
  sessions: z.array(z.strictObject({ startedAt: z.string(), pid: z.number().int() })),
  /** Model labels and condition names in the run's own order. */
  models: z.array(z.string()),
  conditions: z.array(z.string()),
  /** What each stage's components were (`describe()`: generators, retrievers, scorers …; secrets redacted). */
  components: z.looseObject({ generators: z.record(z.string(), z.unknown()).optional(), retrievers: z.record(z.string(), z.unknown()).optional() }),
  /** sha256 of each retriever's `<index>/manifest.json`, by retriever label. */
  indexManifests: z.record(z.string(), z.string()),
  benchmarks: z.array(z.record(z.string(), z.unknown())),
  /**
   * The chunking each retriever reads, by retriever label: its corpus (name, folder) and the corpus's
   * chunking settings as built (a chunking sweep's grid point among them). Conditions of one corpus share a chunking.
   */
  chunkings: z.record(z.string(), z.strictObject({ corpus: z.string(), dir: z.string(), chunking: z.record(z.string(), z.unknown()) })).optional(),
  /**
   * What the records' spans (`goldSpans`, `retrieved[].spans`) and span metrics mean: the chunk span
   * format (chunking/chunker.ts's CHUNK_SPAN_FORMAT; 2: code points, separators included, Chroma's
   * precision and IoU). Absent in runs from before (format 1: UTF-16 offsets, merged precision), which are not resumed.
   */
  spanFormat: z.number().int().positive().optional(),
  /** The image folders the run's prompts may show pages from (absolute): the only folders the viewer serves images from. */
  imageDirs: z.array(z.string()),
  /** False while the run is being written; true once every planned answer is in. */
  complete: z.boolean(),
  /** Answers done, planned and failed when the run last stopped (absent until then). */
  answers: z.strictObject({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative(), failed: z.number().int().nonnegative() }).optional(),
  /** Why the run stopped early (an endpoint down, the failure limit), when it did. */
  stoppedBecause: z.string().optional(),
};

/** manifest.json as written from now on: what produced the run (versions, commit, components, data hashes, times) and how far it got. */
export const RunManifestSchema = z.strictObject({ version: z.literal(MANIFEST_VERSION), ...ManifestFields });
export type RunManifest = z.infer<typeof RunManifestSchema>;

/** Before versions, the manifest grew a field at a time: any may be absent from an old run's. */
const LegacyManifestSchema = z.strictObject(ManifestFields).partial();

/** A manifest as readers get it: a current one, or an old one with whichever fields it has (`version` 0: unversioned, or no manifest at all). */
export type StoredRunManifest = Partial<Omit<RunManifest, 'version'>> & { version: number };

const MANIFEST_FORMAT: VersionedFormat<RunManifest, StoredRunManifest> = {
  version: MANIFEST_VERSION,
  current: RunManifestSchema,
  legacy: LegacyManifestSchema,
  upgrade: (old) => ({ ...(old as z.infer<typeof LegacyManifestSchema>), version: 0 }),
};

/** A run directory's manifest.json; `{ version: 0 }` when it has none. A damaged or hand-edited file is an error naming the file and field. */
export async function readRunManifest(runDir: string): Promise<StoredRunManifest> {
  return (await readVersionedJson(runFile(runDir, 'manifest'), MANIFEST_FORMAT)) ?? { version: 0 };
}

/** The viewer's twin of `readRunManifest`: validates text it has read (`file` names it in errors). */
export function parseRunManifest(file: string, text: string): StoredRunManifest {
  return parseVersionedJson(file, text, MANIFEST_FORMAT);
}

/** Writes manifest.json at today's version. */
export async function writeRunManifest(runDir: string, manifest: RunManifest): Promise<void> {
  await atomicWriteJson(runFile(runDir, 'manifest'), manifest);
}
