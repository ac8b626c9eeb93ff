import { closeSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import type { ExperimentConfig } from '../config/experiment.js';
import { readConfigGlance, type ConfigGlance } from '../runFiles/configGlance.js';
import { parseRunManifest, type StoredRunManifest } from '../runFiles/manifest.js';
import { RUN_FILES } from '../runFiles/runDir.js';
import type { RunSummary } from '../runFiles/summary.js';
import { parseRunSummary } from '../runFiles/summaryFile.js';
import { REDUCERS, type Reducer } from '../statistics/samples.js';
import type { RunStatus } from './api.js';

/** A file of the run directory, or null when it is absent or a link that leads outside the directory. */
export function insideFile(dir: string, name: string): string | null {
  const path = join(dir, name);
  try {
    const real = realpathSync(path);
    const root = realpathSync(dir);
    if (!real.startsWith(root + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** `use` of the run's items.jsonl opened for reading (closed after); null when the run has none. */
export function withItemsFile<T>(dir: string, use: (fd: number) => T): T | null {
  const file = insideFile(dir, RUN_FILES.items);
  if (!file) return null;
  const fd = openSync(file, 'r');
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

/** A run file's text; '' when it is absent or cannot be read. */
function readText(file: string | null): string {
  try {
    return file ? readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
}

function readJson(dir: string, name: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(readText(insideFile(dir, name))) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process that wrote a run's last session is still running: alive, and — where
 * /proc says what it runs — a hisrag command (not another process that got its number after a reboot).
 */
function runnerAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return /hisrag|tsx/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true; // no /proc (macOS, Windows): alive is all we know
  }
}

/** A run's summary.json, read when it changed (mtime, size): null when absent, or invalid (`problem` says why). */
interface StoredSummary {
  stamp: string;
  value: RunSummary | null;
  problem: string | null;
  mtimeMs: number;
}

/** The experiment schema's check, imported with the first run that needs it and shared by every run. */
let configCheck: Promise<typeof import('../config/load.js')> | null = null;

/**
 * What a run directory says of itself: its config (at a glance, then checked in the background), its
 * manifest and its summary.json, each read again when it changed. A damaged file is not fatal: the
 * run is shown without it, and `problems()` names the file and field.
 */
export class RunFiles {
  readonly glance: ConfigGlance<Reducer>;
  /** The config as the experiment schema reads it, once `checkConfig` has passed. */
  config: ExperimentConfig | null = null;
  /** Why config.json failed the experiment schema's check (null: passed, or not checked yet). */
  private configProblem: string | null = null;
  private checking: Promise<ExperimentConfig | null> | null = null;
  private readonly rawConfig: Record<string, unknown>;
  manifest: StoredRunManifest = { version: 0 };
  private manifestText = '';
  /** Why manifest.json could not be read (the run is shown without it, with this message). */
  private manifestProblem: string | null = null;
  private stored: StoredSummary | null = null;

  constructor(
    private readonly dir: string,
    /** Called whenever what was read changed (the run's version goes up). */
    private readonly changed: () => void,
  ) {
    const raw = readJson(this.dir, RUN_FILES.config);
    if (!raw) throw new Error(`${this.dir}: no readable ${RUN_FILES.config}`);
    this.rawConfig = raw;
    this.glance = readConfigGlance(raw, REDUCERS);
    this.readManifest();
  }

  /** Whether the config has been checked against the experiment schema (passed or not). */
  get configChecked(): boolean {
    return this.config !== null || this.configProblem !== null;
  }

  /** Checks config.json against the experiment schema (imported now, once): the config, or null with the problem listed. */
  checkConfig(): Promise<ExperimentConfig | null> {
    this.checking ??= (async () => {
      try {
        const { validateExperimentConfig } = await (configCheck ??= import('../config/load.js'));
        this.config = validateExperimentConfig(this.rawConfig, join(this.dir, RUN_FILES.config));
      } catch (error) {
        this.configProblem = (error as Error).message;
      }
      this.changed();
      return this.config;
    })();
    return this.checking;
  }

  readManifest(): void {
    const file = insideFile(this.dir, RUN_FILES.manifest);
    const text = readText(file);
    if (text === this.manifestText) return;
    this.manifestText = text;
    this.manifestProblem = null;
    try {
      this.manifest = file && text ? parseRunManifest(file, text) : { version: 0 };
    } catch (error) {
      this.manifest = { version: 0 };
      this.manifestProblem = (error as Error).message;
    }
    this.changed();
  }

  /** What of the run's own files could not be read (damaged or hand-edited), each naming the file and field: the run is shown without them. */
  problems(): string[] {
    return [this.configProblem, this.manifestProblem, this.readStored().problem].filter((p): p is string => p !== null);
  }

  status(): RunStatus {
    const m = this.manifest;
    if (m.complete === true) return 'done';
    if (typeof m.stoppedBecause === 'string') return 'failed';
    const last = m.sessions?.[m.sessions.length - 1];
    return last && (last.pid === process.pid || runnerAlive(last.pid)) ? 'in progress' : 'interrupted';
  }

  /** summary.json, re-read when its mtime or size changed. */
  readStored(): StoredSummary {
    const file = insideFile(this.dir, RUN_FILES.summary);
    const st = file ? statSync(file, { throwIfNoEntry: false }) : undefined;
    const stamp = st ? `${st.mtimeMs} ${st.size}` : '';
    if (this.stored?.stamp === stamp) return this.stored;
    let value: RunSummary | null = null;
    let problem: string | null = null;
    if (file) {
      try {
        value = parseRunSummary(file, readFileSync(file, 'utf8'));
      } catch (error) {
        // Shown on the run's page; the summary is computed from the answers meanwhile.
        problem = (error as Error).message;
      }
    }
    this.stored = { stamp, value, problem, mtimeMs: st?.mtimeMs ?? 0 };
    this.changed();
    return this.stored;
  }

  /** The manifest's `imageDirs`: the absolute folders this run's prompts may show pages from, and the only ones served. */
  imageDirs(): string[] {
    return (this.manifest.imageDirs ?? []).filter((d) => isAbsolute(d));
  }
}
