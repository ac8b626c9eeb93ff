import { summaryMetric } from '../scoring/metrics.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunSummary } from '../runFiles/summary.js';
import { RUN_FILES } from '../runFiles/runDir.js';
import { LABELS_DIR } from '../runFiles/labels.js';
import { summarizeRun } from '../analysis/summary.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { costFigure, depthFigure, probabilityBestFigure } from '../figures/runFigures.js';
import type { AnswerDetail, CellView, IndexCounters, IndexState, RunDetail, RunListEntry } from './api.js';
import { AnswerLoader } from './answerLoader.js';
import { answerDetail, bundleRows, scoreRows } from './answerQueries.js';
import { IndexCache } from './indexCache.js';
import type { BundleRow, ScoreRow } from './queries.js';
import { insideFile, RunFiles } from './runFileReads.js';

/** An append up to this size is indexed within the request that sees it (a run in progress); more is left to the background. */
const INLINE_BYTES = 8 * 1024 * 1024;
/** A large run in progress (more answers than this) recomputes its summary (bootstrap CIs) at most every SUMMARY_EVERY_MS. */
const SUMMARY_THROTTLE_ABOVE = 5000;
const SUMMARY_EVERY_MS = 1500;

/** `summaryOptionsOf` reads the checked config (its module imports the experiment schema): imported with the first summary computed from answers. */
let loadRunModule: typeof import('../results/loadRun.js') | null = null;

/**
 * One run directory, indexed. What the run summarises (config at a glance, manifest, summary.json)
 * is read at once, so the run list and a finished run's conditions need no answer and no heavy
 * import; its answers go into an SQLite index in the cache folder (`AnswerLoader`), filled in steps
 * by the store's background loop and kept between starts. No per-answer object stays in the process.
 */
export class RunIndex {
  /** The index of the run's answers (the store closes it and hands back its memory; answer pages query it). */
  readonly cache: IndexCache;
  /** The run's own files, and the loader of its answers into the index: the store's background loop drives both. */
  readonly files: RunFiles;
  readonly loader: AnswerLoader;
  private changes = 0;
  private summary: { changes: number; at: number; value: RunSummary } | null = null;

  constructor(
    readonly id: string,
    readonly dir: string,
    cacheFile: string,
    counters: IndexCounters,
  ) {
    const changed = () => void this.changes++;
    this.files = new RunFiles(dir, changed);
    this.cache = new IndexCache(cacheFile, dir, counters);
    this.loader = new AnswerLoader(dir, this.cache, counters, changed, () => this.changes);
    this.loader.checkFile();
  }

  /** Every complete line of items.jsonl indexed. */
  get ready(): boolean {
    return this.loader.ready;
  }

  get indexState(): IndexState {
    return this.loader.indexState;
  }

  loadItems(): Promise<void> {
    return this.loader.loadItems(this.files.config?.benchmarks ?? this.files.glance.benchmarks);
  }

  /** The settings the run list and page show: the checked config's, else config.json's at a glance. */
  private get settings() {
    return this.files.config ?? this.files.glance;
  }

  /** Re-reads the manifest and items.jsonl, indexing appends of at most `inlineBytes` at once; whether some is left. */
  refresh(inlineBytes = INLINE_BYTES): boolean {
    this.files.readManifest();
    this.loader.checkFile();
    if (this.ready) return false;
    if (!this.loader.needsItems && this.loader.pending <= inlineBytes) {
      while (!this.ready && this.loader.indexStep()) {
        // a few MB at most
      }
    }
    return !this.ready;
  }

  /** summary.json when it is the finished run's own (written after its last answer, covering exactly them). */
  private storedSummary(): RunSummary | null {
    if (this.files.manifest.complete !== true) return null;
    const stored = this.files.readStored();
    if (!stored.value) return null;
    const itemsFile = insideFile(this.dir, RUN_FILES.items);
    try {
      if (itemsFile && stored.mtimeMs < statSync(itemsFile).mtimeMs) return null;
    } catch {
      return null;
    }
    if (this.ready && stored.value.totals.items !== this.loader.counts().n) return null;
    return stored.value;
  }

  /** The run's own summary.json, else `summarizeRun` over the answers once they are all in (null before). */
  private currentSummary(): RunSummary | null {
    const now = Date.now();
    const stored = this.storedSummary();
    if (stored) {
      if (this.summary?.value !== stored) this.summary = { changes: this.changes, at: now, value: stored };
      return stored;
    }
    // Computed from the answers: with the checked config (null before, or when it failed the check).
    const config = this.files.config;
    if (!this.ready || !config || !loadRunModule) return null;
    const live = this.loader.counts().n > SUMMARY_THROTTLE_ABOVE && this.files.status() === 'in progress';
    if (this.summary && (this.summary.changes === this.changes || (live && now - this.summary.at < SUMMARY_EVERY_MS))) return this.summary.value;
    // The answers' slim records, for this computation only: nothing per answer is kept afterwards.
    const records = (this.cache.db.prepare('SELECT slim FROM answers').all() as { slim: string }[]).map((r) => JSON.parse(r.slim) as RunItemRecord);
    const value = summarizeRun(records, loadRunModule.summaryOptionsOf(config, this.files.manifest, records));
    this.summary = { changes: this.changes, at: now, value };
    return value;
  }

  /** Computes a run's summary once its answers are in, when it has no summary.json of its own. */
  async warmSummary(): Promise<void> {
    if (!this.ready || this.storedSummary() !== null) return;
    await this.files.checkConfig();
    loadRunModule ??= await import('../results/loadRun.js');
    this.currentSummary();
  }

  private entry: { key: string; value: RunListEntry } | null = null;

  listEntry(): RunListEntry {
    const summary = this.currentSummary();
    const state = this.indexState;
    const cacheKey = `${this.changes} ${this.files.status()} ${state.state} ${summary === null} ${this.files.problems().join('\n')}`;
    if (this.entry?.key === cacheKey) return this.entry.value;
    this.entry = { key: cacheKey, value: this.computeEntry(summary, state) };
    return this.entry.value;
  }

  private computeEntry(summary: RunSummary | null, index: IndexState): RunListEntry {
    const { manifest, glance } = this.files;
    let best: RunListEntry['best'] = null;
    for (const cell of summary?.cells ?? []) {
      if (cell.score.mean !== null && (best === null || cell.score.mean > best.mean)) {
        best = { model: cell.model, condition: cell.condition, mean: cell.score.mean, ciLow: cell.score.ciLow, ciHigh: cell.score.ciHigh };
      }
    }
    const cells = summary?.cells ?? [];
    const costed = cells.filter((c) => c.cost && c.cost.n > 0);
    const weight = costed.reduce((n, c) => n + c.cost!.n, 0);
    const tokens = weight ? costed.reduce((s, c) => s + (c.cost!.promptTokens + c.cost!.completionTokens) * c.cost!.n, 0) / weight : null;
    const price = weight && costed.every((c) => c.cost!.price !== null) ? costed.reduce((s, c) => s + c.cost!.price! * c.cost!.n, 0) / weight : null;
    const planned = manifest.answers;
    const configBenchmarks = glance.benchmarks.map((b) => b.name ?? '').filter(Boolean);
    // Before the answers are indexed, what the run says of itself: its summary, else its manifest.
    const counted = index.state === 'ready' ? this.loader.counts() : null;
    const answers = counted?.n ?? summary?.totals.items ?? planned?.done ?? index.answers;
    const items = counted?.items ?? Math.max(0, ...cells.map((c) => c.items));
    return {
      id: this.id,
      experiment: manifest.experiment ?? this.settings.name,
      startedAt: manifest.startedAt ?? null,
      finishedAt: manifest.finishedAt ?? null,
      status: this.files.status(),
      stoppedBecause: manifest.stoppedBecause ?? null,
      problems: this.files.problems(),
      models: summary?.models ?? manifest.models ?? [],
      conditions: summary?.conditions ?? manifest.conditions ?? [],
      benchmarks: counted?.benchmarks.length ? counted.benchmarks : configBenchmarks,
      answers,
      total: planned?.total ?? null,
      items,
      baseline: summary?.baseline ?? this.settings.scoring.baseline,
      best,
      cost: { tokens, price, estimated: costed.some((c) => c.cost!.estimatedTokens) },
      failures: summary ? summary.totals.generationFailed + summary.totals.judgeFailed : 0,
      empty: summary?.totals.empty ?? 0,
      version: this.changes,
      index,
    };
  }

  private detailCache: { key: string; value: RunDetail } | null = null;

  /** The newest modification time of the run's label files (0 without labels): a label saved or imported changes it. */
  private labelsAt(): number {
    const dir = join(this.dir, LABELS_DIR);
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
    } catch {
      return 0;
    }
    return Math.max(0, ...names.map((name) => statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0));
  }

  /** What is stale about the judge check shown, given the labels' time (none when it is current or there are no labels). */
  private labelsStale(labelsAt: number): RunDetail['labelsStale'] {
    if (!labelsAt) return undefined;
    if (this.storedSummary() === null) {
      return { refreshing: false, note: `This run has labels (labels/), but no current summary.json: the figures here are computed from the answers without them (no judge check, no corrected Δ) until the run finishes or \`hisrag report ${this.dir}\` rewrites it.` };
    }
    if (labelsAt > this.files.readStored().mtimeMs) return { refreshing: true, note: `Labels were saved after summary.json was written: the judge check and corrected figures are being refreshed (if this stays, run \`hisrag report ${this.dir}\`).` };
    return undefined;
  }

  detail(): RunDetail {
    const summary = this.currentSummary();
    const labelsAt = this.labelsAt();
    const cacheKey = `${this.changes} ${this.ready} ${this.files.status()} ${labelsAt}`;
    if (this.detailCache?.key === cacheKey && this.detailCache.value.cells.length === (summary?.cells.length ?? 0)) return this.detailCache.value;
    // Cell diagnostics: from the recomputed summary when it carries them, else from summary.json.
    const storedCells = this.files.readStored().value?.cells ?? [];
    const storedDiagnostics = new Map(storedCells.filter((c) => c.diagnostics !== undefined).map((c) => [`${c.model}\u0000${c.condition}`, c.diagnostics]));
    const cells: CellView[] = (summary?.cells ?? []).map((cell) => {
      const diagnostics = (cell as { diagnostics?: unknown }).diagnostics ?? storedDiagnostics.get(`${cell.model}\u0000${cell.condition}`);
      return {
        ...cell,
        paired: summary!.paired.find((p) => p.model === cell.model && p.condition === cell.condition) ?? null,
        ...(diagnostics !== undefined ? { diagnostics } : {}),
      };
    });
    const groupValues = this.groupValues(summary);
    const config = this.settings;
    const detail: RunDetail = {
      run: this.listEntry(),
      baseline: summary?.baseline ?? config.scoring.baseline,
      bootstrap: { ...(summary?.bootstrap ?? { resamples: config.scoring.bootstrapResamples, seed: config.seed, confidence: 0.95 }), reducer: config.scoring.reducer ?? 'mean', cluster: summary?.cluster ?? null },
      cells,
      ...(summary ? { metric: summaryMetric(summary).id } : {}),
      ...(summary?.versus ? { versus: summary.versus } : {}),
      groupKeys: Object.keys(groupValues).sort(),
      groupValues,
      charts: summary ? summary.models.map((model) => ({ model, depth: depthFigure(summary, model), pBest: probabilityBestFigure(summary, model), cost: costFigure(summary, model) })) : [],
      byModality: summary?.byModality ?? [],
      ...(summary?.judgeCheck ? { judgeCheck: summary.judgeCheck } : {}),
      labelsStale: this.labelsStale(labelsAt),
      report: insideFile(this.dir, RUN_FILES.report) !== null,
    };
    this.detailCache = { key: cacheKey, value: detail };
    return detail;
  }

  /** Each breakdown key's values (category, dynasty …): the indexed answers', or while indexing, the summary's. */
  private groupValues(summary: RunSummary | null): Record<string, string[]> {
    const pairs = this.ready
      ? (this.cache.db.prepare('SELECT DISTINCT groups FROM answers').all() as { groups: string }[]).flatMap((r) => Object.entries(JSON.parse(r.groups) as Record<string, string>))
      : (summary?.cells ?? []).flatMap((cell) => Object.entries(cell.byGroup).flatMap(([key, values]) => Object.keys(values).map((value) => [key, value] as const)));
    const values = new Map<string, Set<string>>();
    for (const [key, value] of pairs) values.set(key, (values.get(key) ?? new Set()).add(value));
    return Object.fromEntries([...values].map(([key, set]) => [key, [...set].sort()]));
  }

  /** What Compare needs of every answer of one condition (with its sample and cluster key). */
  scoreRows(model: string, condition: string): ScoreRow[] {
    return scoreRows(this.cache.db, model, condition, this.currentSummary()?.cluster ?? null);
  }

  /** One condition's answers as a bundle stores them (what its table shows, searches and compares). */
  bundleRows(model: string, condition: string): BundleRow[] {
    return bundleRows(this.cache.db, model, condition, this.currentSummary()?.cluster ?? null);
  }

  answer(key: string): AnswerDetail | null {
    return answerDetail(this.cache, { id: this.id, dir: this.dir, imageDirs: this.files.imageDirs() }, key);
  }
}
