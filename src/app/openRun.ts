import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CHUNK_SPAN_FORMAT } from '../chunking/chunker.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { InputError } from '../errors.js';
import { redactSecrets } from '../experiment/redact.js';
import { assertRunDirectory, runFile } from '../runFiles/runDir.js';
import { readRunConfig } from '../config/runConfig.js';
import { atomicWriteJson, removeStaleTempFiles } from '../io/atomicWrite.js';
import type { HeldLock } from '../runFiles/lockFile.js';
import { readRunManifest, type StoredRunManifest } from '../runFiles/manifest.js';
import { acquireRunLock } from './runLock.js';

/** A run directory opened for writing, its lock held: a new one with its config written, or one to resume. */
export interface OpenedRun {
  config: ExperimentConfig;
  runDir: string;
  /** The manifest of the run being resumed (its start time and earlier fields are kept). */
  previousManifest?: StoredRunManifest | undefined;
}

/**
 * Refuses to resume a run whose records hold spans of another format than this hisrag writes
 * (an older run: UTF-16 offsets, precision over merged ranges): its span metrics and the new ones would
 * not mean the same, and one table would mix them.
 */
async function refuseOtherSpanFormat(runDir: string, manifest: StoredRunManifest): Promise<void> {
  const format = manifest.spanFormat ?? 1;
  if (format === CHUNK_SPAN_FORMAT) return;
  const items = runFile(runDir, 'items');
  if (!existsSync(items) || !(await readFile(items, 'utf8')).includes('"goldSpans"')) return;
  throw new InputError(
    `${runDir}: its span metrics were computed with span format ${format} (UTF-16 offsets, precision over merged ranges); this hisrag computes format ${CHUNK_SPAN_FORMAT} (code points, Chroma's precision and IoU), and resuming would mix the two. Start a new run (rebuild its corpora first: hisrag prepare)`,
  );
}

function timestampId(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** Runs `work` with the `holdLock` that `openRunDirectory` takes: the lock it is handed is released however `work` ends. */
export async function withHeldLock<T>(work: (holdLock: (lock: HeldLock) => void) => Promise<T>): Promise<T> {
  let lock: HeldLock | undefined;
  try {
    return await work((held) => (lock = held));
  } finally {
    await lock?.release();
  }
}

/**
 * Opens the run directory under its lock (handed to `holdLock` at once, so it is released however the
 * run ends): a resumed run's stored config is read back; a new run's directory and config.json exist from
 * the first moment, so a run interrupted while preparing its artefacts is resumed like any other.
 */
export async function openRunDirectory(
  options: { config?: ExperimentConfig; resumeDir?: string; runId?: string },
  log: (line: string) => void,
  holdLock: (lock: HeldLock) => void,
): Promise<OpenedRun> {
  if (options.resumeDir) {
    const runDir = resolve(options.resumeDir);
    assertRunDirectory(runDir);
    holdLock(await acquireRunLock(runDir, log));
    const config = await readRunConfig(runDir);
    const previousManifest = await readRunManifest(runDir);
    await refuseOtherSpanFormat(runDir, previousManifest);
    // A run killed outright (kill -9) may have left a half-written temporary file behind.
    await removeStaleTempFiles(runDir);
    return { config, runDir, previousManifest };
  }
  if (!options.config) throw new InputError('runExperiment needs a config or a run directory to resume');
  const config = options.config;
  const runDir = resolve(config.output, options.runId ?? `${config.name}-${timestampId()}`);
  // Locked before the check, so a run still writing this directory is named as its holder.
  await mkdir(runDir, { recursive: true });
  holdLock(await acquireRunLock(runDir, log));
  if (existsSync(runFile(runDir, 'items')) || existsSync(runFile(runDir, 'config'))) {
    throw new InputError(`${runDir} already holds a run; use --resume ${runDir} to finish it`);
  }
  // Secrets are redacted (keys come from the environment).
  await atomicWriteJson(runFile(runDir, 'config'), redactSecrets(config));
  return { config, runDir };
}
