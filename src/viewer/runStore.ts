import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve, sep } from 'node:path';
import { InputError } from '../errors.js';
import { RUN_FILES } from '../experiment/runDirectory.js';
import type { AnswerDetail, AnswerPage, AnswerQuery, CompareQuery, CompareResult, RunDetail, RunListEntry } from './api.js';
import { compareRows, decompositionOf } from './queries.js';
import { insideFile, RunIndex } from './runIndex.js';

/** New runs in the given folders are looked for at most this often. */
const RESCAN_MS = 1000;

const isRunDir = (dir: string) => insideFile(dir, RUN_FILES.config) !== null;

/** Stores not closed yet: their index folders are removed when the process exits, however it exits. */
const open = new Set<RunStore>();
let exitHook = false;

/**
 * The runs a viewer serves: the run directories given, and the run directories directly inside
 * the folders given (new ones are picked up as they appear). Only those: a link inside a folder
 * that leads outside it is not followed. Each run has an index (`RunIndex`) in a temporary folder
 * that is removed on close.
 */
export class RunStore {
  private runs = new Map<string, RunIndex>();
  private byDir = new Map<string, string>();
  private scannedAt = 0;
  private scanning: Promise<void> | null = null;
  private readonly indexDir: string;
  private readonly roots: { path: string; real: string; kind: 'run' | 'folder' }[];
  /** Run directories that could not be read (a bad config), with why. */
  readonly skipped = new Map<string, string>();

  constructor(paths: string[]) {
    this.roots = paths.map((p) => {
      const path = resolve(p);
      if (!existsSync(path) || !statSync(path).isDirectory()) throw new InputError(`${p}: no such folder (give run directories or folders that hold them)`);
      return { path, real: realpathSync(path), kind: isRunDir(path) ? 'run' : 'folder' };
    });
    this.indexDir = mkdtempSync(join(tmpdir(), 'hisrag-view-'));
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const store of open) store.close();
      });
    }
  }

  close(): void {
    for (const run of this.runs.values()) run.close();
    this.runs.clear();
    rmSync(this.indexDir, { recursive: true, force: true });
    open.delete(this);
  }

  /** Looks for new run directories (throttled) and indexes them. */
  async scan(force = false): Promise<void> {
    if (!force && Date.now() - this.scannedAt < RESCAN_MS) return;
    if (this.scanning) return this.scanning;
    this.scanning = (async () => {
      const found: string[] = [];
      for (const root of this.roots) {
        if (root.kind === 'run') {
          found.push(root.real);
          continue;
        }
        let names: string[] = [];
        try {
          names = readdirSync(root.real).sort();
        } catch {
          continue;
        }
        for (const name of names) {
          let real: string;
          try {
            real = realpathSync(join(root.real, name));
          } catch {
            continue;
          }
          if (!real.startsWith(root.real + sep)) continue; // a link that leads outside the folder
          try {
            if (statSync(real).isDirectory() && isRunDir(real)) found.push(real);
          } catch {
            // vanished meanwhile
          }
        }
      }
      for (const dir of found) {
        if (this.byDir.has(dir) || this.skipped.has(dir)) continue;
        let id = basename(dir).replace(/[^\w.\-@+]/g, '_') || 'run';
        for (let n = 2; this.runs.has(id); n++) id = `${basename(dir)}~${n}`;
        const index = new RunIndex(id, dir, join(this.indexDir, `${this.runs.size}.sqlite`));
        try {
          await index.open();
          this.runs.set(id, index);
          this.byDir.set(dir, id);
        } catch (error) {
          index.close();
          this.skipped.set(dir, (error as Error).message);
        }
      }
      this.scannedAt = Date.now();
    })();
    try {
      await this.scanning;
    } finally {
      this.scanning = null;
    }
  }

  /** The run with this id, its new answers read; null for any other id. */
  get(id: string): RunIndex | null {
    const run = this.runs.get(id) ?? null;
    if (run) {
      try {
        run.refresh();
      } catch {
        // a run directory removed meanwhile keeps what was read
      }
    }
    return run;
  }

  ids(): string[] {
    return [...this.runs.keys()];
  }

  async list(): Promise<RunListEntry[]> {
    await this.scan();
    return this.ids().map((id) => this.get(id)!.listEntry());
  }

  run(id: string): RunDetail | null {
    return this.get(id)?.detail() ?? null;
  }

  answers(query: AnswerQuery): AnswerPage | null {
    return this.get(query.run)?.answers(query) ?? null;
  }

  answer(run: string, key: string): AnswerDetail | null {
    return this.get(run)?.answer(key) ?? null;
  }

  compare(query: CompareQuery): CompareResult | null {
    const runA = this.get(query.a.run);
    const runB = query.b.run === query.a.run ? runA : this.get(query.b.run);
    if (!runA || !runB) return null;
    const cellA = runA.cell(query.a.model, query.a.condition);
    const cellB = runB.cell(query.b.model, query.b.condition);
    if (!cellA || !cellB) return null;
    const result = compareRows(runA.scoreRows(query.a.model, query.a.condition), runB.scoreRows(query.b.model, query.b.condition), {
      outcome: query.outcome,
      offset: query.offset,
      limit: query.limit,
      ...runB.bootstrap,
    });
    const decomposition = decompositionOf(cellB.diagnostics);
    return {
      a: { ...query.a, mean: cellA.score.mean, scored: cellA.scored, answers: cellA.items },
      b: { ...query.b, mean: cellB.score.mean, scored: cellB.scored, answers: cellB.items },
      ...result,
      decomposition:
        decomposition && runA === runB && decomposition.baseline === query.a.condition && query.a.model === query.b.model ? (cellB.diagnostics as { decomposition: unknown }).decomposition : null,
    };
  }
}
