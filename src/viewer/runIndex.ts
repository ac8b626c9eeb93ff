import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import Database from 'better-sqlite3';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { benchmarks } from '../benchmarks/registry.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { validateExperimentConfig } from '../config/load.js';
import { isGoldChunk } from '../diagnostics/evidence.js';
import { RunItemRecordSchema, type RunItemRecord } from '../experiment/records.js';
import { RUN_FILES } from '../experiment/runDirectory.js';
import { summarizeRun, type RunSummary } from '../experiment/summary.js';
import { summaryOptionsOf } from '../results/loadRun.js';
import { costChartSvg } from '../report/costChart.js';
import { depthChartSvg } from '../report/depthChart.js';
import type {
  AnswerDetail,
  AnswerPage,
  AnswerQuery,
  AnswerRow,
  CellView,
  ImageView,
  ItemInfo,
  OtherAnswer,
  PassageView,
  RunDetail,
  RunListEntry,
  RunStatus,
} from './api.js';
import { haystackOf, splitGroup, type BundleRow, type ScoreRow } from './queries.js';

/** Characters of question and answer kept in a table row (the answer page reads the record whole). */
const SNIPPET = 160;
/** items.jsonl is read in pieces of this size: memory stays bounded whatever the file's size. */
const READ_CHUNK = 4 * 1024 * 1024;
/** A large run in progress (more answers than this) recomputes its summary (bootstrap CIs) at most every SUMMARY_EVERY_MS. */
const SUMMARY_THROTTLE_ABOVE = 5000;
const SUMMARY_EVERY_MS = 1500;

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

function readJson(dir: string, name: string): Record<string, unknown> | null {
  const file = insideFile(dir, name);
  if (!file) return null;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
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

/**
 * What the summary needs of a record, without its texts (prompt, passages, trace, response): the
 * index keeps these in memory for the run's summary, so memory grows with the number of answers,
 * never with what they say.
 */
function slim(record: RunItemRecord): RunItemRecord {
  const out: RunItemRecord = {
    ...record,
    question: '',
    // One image reference of the prompt is kept: the summary tells image conditions by it (`byModality`).
    prompt: keptImage(record),
    retrieved: record.retrieved.filter((c) => c.rerankFallback !== undefined).map((c) => ({ ...c, title: '', text: '' })),
    contextIds: [],
    response: record.response ? { text: record.response.text ? ' ' : '', raw: '' } : null,
    score: { ...record.score, judgeRaw: undefined, extracted: undefined },
    trace: [],
  };
  // Claims and labels: the cells' diagnostics come from summary.json, not from here.
  delete (out as { diagnostics?: unknown }).diagnostics;
  return out;
}

function keptImage(record: RunItemRecord): RunItemRecord['prompt'] {
  const message = record.prompt.find((m) => m.images?.length);
  return message ? [{ role: message.role, content: '', images: [message.images![0]!] }] : [];
}

/** A record as the answer page shows it: `diagnostics` as the file has it, whatever the record schema knows. */
type ViewedRecord = Omit<RunItemRecord, 'diagnostics'> & { diagnostics?: unknown };

export interface StoredItem {
  referenceAnswer?: string;
  rubrics?: string;
  answer?: BenchmarkItem['answer'];
  goldChunkIds?: string[];
  evidencePages?: number[];
  docId?: string;
}

/**
 * One run directory, indexed: its answers in an SQLite file (one row per answer: the fields the
 * tables filter and sort on, the searchable text, and where the record lies in items.jsonl), read
 * incrementally — each refresh reads only the bytes appended since the last one — so the answers
 * of a run in progress appear as they are written. Read-only towards the run directory.
 */
export class RunIndex {
  private db: Database.Database;
  private offset = 0;
  private inode = -1;
  private records = new Map<string, RunItemRecord>();
  private config: ExperimentConfig | null = null;
  private manifest: Record<string, unknown> = {};
  private itemsLoaded = false;
  private changes = 0;
  private summary: { changes: number; at: number; value: RunSummary; detail: RunDetail | null } | null = null;
  /** Lines that were not valid records (left out; the run's own tools report them). */
  badLines = 0;

  constructor(
    readonly id: string,
    readonly dir: string,
    dbFile: string,
  ) {
    this.db = new Database(dbFile);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -16000');
    this.db.exec(`
      CREATE TABLE answers (
        id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, model TEXT NOT NULL, condition TEXT NOT NULL,
        benchmark TEXT NOT NULL, itemId TEXT NOT NULL, itemKey TEXT NOT NULL, category TEXT NOT NULL, groups TEXT NOT NULL,
        question TEXT NOT NULL, answer TEXT NOT NULL, score REAL, status TEXT NOT NULL, empty INTEGER NOT NULL,
        tokens REAL, price REAL, rcalls REAL, gcalls REAL, ms REAL, offset INTEGER NOT NULL, length INTEGER NOT NULL, haystack TEXT NOT NULL
      );
      CREATE INDEX answers_cell ON answers (model, condition, itemKey);
      CREATE INDEX answers_item ON answers (itemKey);
      CREATE TABLE items (itemKey TEXT PRIMARY KEY, info TEXT NOT NULL);
    `);
  }

  close(): void {
    this.db.close();
  }

  /** Reads what was appended to items.jsonl and re-reads the manifest; true when something changed. */
  refresh(): boolean {
    const before = this.changes;
    const manifest = readJson(this.dir, RUN_FILES.manifest) ?? {};
    if (JSON.stringify(manifest) !== JSON.stringify(this.manifest)) {
      this.manifest = manifest;
      this.changes++;
    }
    this.readConfig();
    this.readAppended();
    return this.changes !== before;
  }

  /**
   * Reads the config, loads the benchmark's items (references, rubrics, gold evidence: a benchmark
   * file that moved leaves them out) before the first answers, so references are searchable, then
   * indexes what items.jsonl holds.
   */
  async open(): Promise<void> {
    this.readConfig();
    await this.loadItems();
    this.refresh();
    // The summary (bootstrap CIs: seconds on a large run) is ready before the first page asks.
    this.currentSummary();
  }

  private readConfig(): void {
    if (this.config) return;
    const raw = readJson(this.dir, RUN_FILES.config);
    if (!raw) throw new Error(`${this.dir}: no readable ${RUN_FILES.config}`);
    this.config = validateExperimentConfig(raw, join(this.dir, RUN_FILES.config));
  }

  private async loadItems(): Promise<void> {
    if (this.itemsLoaded || !this.config) return;
    this.itemsLoaded = true;
    const specs = this.config.benchmarks ?? (this.config.benchmark ? [this.config.benchmark] : []);
    const insert = this.db.prepare('INSERT OR REPLACE INTO items (itemKey, info) VALUES (?, ?)');
    for (const spec of specs) {
      try {
        const benchmark = await benchmarks.create(spec as { name: string } & Record<string, unknown>, undefined);
        const items = await benchmark.load();
        this.db.transaction(() => {
          for (const item of items) {
            const stored: StoredItem = {
              ...(item.referenceAnswer ? { referenceAnswer: item.referenceAnswer } : {}),
              ...(item.rubrics ? { rubrics: item.rubrics } : {}),
              ...(item.answer !== undefined ? { answer: item.answer } : {}),
              ...(item.goldChunkIds ? { goldChunkIds: item.goldChunkIds } : {}),
              ...(item.evidencePages ? { evidencePages: item.evidencePages } : {}),
              ...(item.docId ? { docId: item.docId } : {}),
            };
            insert.run(`${item.benchmark}:${item.id}`, JSON.stringify(stored));
          }
        })();
      } catch {
        // The run directory is what the viewer shows; a benchmark file elsewhere is a bonus.
      }
    }
  }

  private reset(): void {
    this.db.exec('DELETE FROM answers');
    this.records.clear();
    this.offset = 0;
    this.changes++;
  }

  private readAppended(): void {
    const file = insideFile(this.dir, RUN_FILES.items);
    if (!file) {
      if (this.offset > 0) this.reset();
      return;
    }
    const fd = openSync(file, 'r');
    try {
      const st = fstatSync(fd);
      // A resume that cut a torn last line, or a file replaced: read it again from the start.
      if (st.size < this.offset || (this.inode !== -1 && st.ino !== this.inode)) this.reset();
      this.inode = st.ino;
      if (st.size === this.offset) return;
      const upsert = this.db.prepare(`
        INSERT INTO answers (key, model, condition, benchmark, itemId, itemKey, category, groups, question, answer, score, status, empty, tokens, price, rcalls, gcalls, ms, offset, length, haystack)
        VALUES (@key, @model, @condition, @benchmark, @itemId, @itemKey, @category, @groups, @question, @answer, @score, @status, @empty, @tokens, @price, @rcalls, @gcalls, @ms, @offset, @length, @haystack)
        ON CONFLICT(key) DO UPDATE SET score = excluded.score, status = excluded.status, empty = excluded.empty, answer = excluded.answer,
          tokens = excluded.tokens, price = excluded.price, rcalls = excluded.rcalls, gcalls = excluded.gcalls, ms = excluded.ms,
          offset = excluded.offset, length = excluded.length, haystack = excluded.haystack, groups = excluded.groups`);
      const reference = this.db.prepare('SELECT info FROM items WHERE itemKey = ?');
      const insertLines = this.db.transaction((lines: { text: string; offset: number; length: number }[]) => {
        for (const line of lines) {
          let value: unknown;
          try {
            value = JSON.parse(line.text);
          } catch {
            this.badLines++;
            continue;
          }
          const parsed = RunItemRecordSchema.safeParse(value);
          if (!parsed.success) {
            this.badLines++;
            continue;
          }
          const r = parsed.data;
          const itemKey = `${r.benchmark}:${r.itemId}`;
          const info = reference.get(itemKey) as { info: string } | undefined;
          const answer = r.response?.text ?? '';
          upsert.run({
            key: r.key,
            model: r.model,
            condition: r.condition,
            benchmark: r.benchmark,
            itemId: r.itemId,
            itemKey,
            category: r.category,
            groups: JSON.stringify(r.groups),
            question: r.question.slice(0, SNIPPET),
            answer: answer.slice(0, SNIPPET),
            score: r.score.status === 'scored' ? r.score.score : null,
            status: r.score.status,
            empty: r.score.rule === 'empty-answer' ? 1 : 0,
            tokens: r.cost ? r.cost.promptTokens + r.cost.completionTokens : null,
            price: r.cost?.price ?? null,
            rcalls: r.cost?.retrievalCalls ?? null,
            gcalls: r.cost?.generationCalls ?? null,
            ms: r.cost?.durationMs ?? r.durationMs,
            offset: line.offset,
            length: line.length,
            haystack: haystackOf(r.question, answer, info ? ((JSON.parse(info.info) as StoredItem).referenceAnswer ?? null) : null),
          });
          this.records.set(r.key, slim(r));
        }
      });
      // One buffer, reused: a piece is read after the previous piece's unfinished line.
      let buffer = Buffer.allocUnsafe(READ_CHUNK);
      let carried = 0;
      let position = this.offset;
      for (;;) {
        if (carried === buffer.length) {
          // A line longer than the buffer: grow it.
          const bigger = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(bigger, 0, 0, carried);
          buffer = bigger;
        }
        const read = readSync(fd, buffer, carried, buffer.length - carried, position);
        if (read <= 0) break;
        position += read;
        const end = carried + read;
        const lastNewline = buffer.lastIndexOf(0x0a, end - 1);
        if (lastNewline === -1) {
          carried = end;
          continue;
        }
        const lines: { text: string; offset: number; length: number }[] = [];
        let start = 0;
        while (start <= lastNewline) {
          const nl = buffer.indexOf(0x0a, start);
          if (nl - start > 0) {
            const text = buffer.toString('utf8', start, nl);
            if (text.trim()) lines.push({ text, offset: this.offset + start, length: nl - start });
          }
          start = nl + 1;
        }
        insertLines(lines);
        this.offset += lastNewline + 1;
        carried = end - (lastNewline + 1);
        buffer.copy(buffer, 0, lastNewline + 1, end);
        if (lines.length) this.changes++;
      }
      // A last line without its newline is an append in progress: read again on the next refresh.
    } finally {
      closeSync(fd);
    }
  }

  private readRecordAt(offset: number, length: number): ViewedRecord | null {
    const file = insideFile(this.dir, RUN_FILES.items);
    if (!file) return null;
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, offset);
      const raw = JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
      const record: ViewedRecord = RunItemRecordSchema.parse(raw);
      // The record schema may not know `diagnostics` yet: keep it as the file has it.
      if (raw.diagnostics !== undefined && record.diagnostics === undefined) record.diagnostics = raw.diagnostics;
      return record;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  get version(): number {
    return this.changes;
  }

  private status(): RunStatus {
    const m = this.manifest;
    if (m.complete === true) return 'done';
    if (typeof m.stoppedBecause === 'string') return 'failed';
    const sessions = Array.isArray(m.sessions) ? (m.sessions as { pid?: unknown }[]) : [];
    const last = sessions[sessions.length - 1];
    if (last && last.pid !== process.pid && runnerAlive(last.pid)) return 'in progress';
    if (last && last.pid === process.pid) return 'in progress';
    return 'interrupted';
  }

  private currentSummary(): RunSummary {
    const now = Date.now();
    const live = this.records.size > SUMMARY_THROTTLE_ABOVE && this.status() === 'in progress';
    if (this.summary && (this.summary.changes === this.changes || (live && now - this.summary.at < SUMMARY_EVERY_MS))) return this.summary.value;
    const config = this.config!;
    const stored = this.storedSummary();
    if (stored) {
      this.summary = { changes: this.changes, at: now, value: stored, detail: null };
      return stored;
    }
    const records = [...this.records.values()];
    const value = summarizeRun(records, summaryOptionsOf(config, this.manifest, records));
    this.summary = { changes: this.changes, at: now, value, detail: null };
    return value;
  }

  /**
   * summary.json as the run wrote it, when it covers exactly the answers read (a finished run whose
   * summary was written after its last answer): the same `summarizeRun` figures without recomputing
   * the bootstrap.
   */
  private storedSummary(): RunSummary | null {
    if (this.manifest.complete !== true) return null;
    const summaryFile = insideFile(this.dir, RUN_FILES.summary);
    const itemsFile = insideFile(this.dir, RUN_FILES.items);
    if (!summaryFile || !itemsFile || statSync(summaryFile).mtimeMs < statSync(itemsFile).mtimeMs) return null;
    const stored = readJson(this.dir, RUN_FILES.summary) as RunSummary | null;
    if (!stored || !Array.isArray(stored.cells) || stored.totals?.items !== this.records.size) return null;
    return stored;
  }

  private entry: { key: string; value: RunListEntry } | null = null;

  listEntry(): RunListEntry {
    const summary = this.currentSummary();
    const cacheKey = `${this.changes} ${this.status()}`;
    if (this.entry?.key === cacheKey) return this.entry.value;
    this.entry = { key: cacheKey, value: this.computeEntry(summary) };
    return this.entry.value;
  }

  private computeEntry(summary: RunSummary): RunListEntry {
    const config = this.config!;
    let best: RunListEntry['best'] = null;
    for (const cell of summary.cells) {
      if (cell.score.mean !== null && (best === null || cell.score.mean > best.mean)) {
        best = { model: cell.model, condition: cell.condition, mean: cell.score.mean, ciLow: cell.score.ciLow, ciHigh: cell.score.ciHigh };
      }
    }
    const costed = summary.cells.filter((c) => c.cost && c.cost.n > 0);
    const weight = costed.reduce((n, c) => n + c.cost!.n, 0);
    const tokens = weight ? costed.reduce((s, c) => s + (c.cost!.promptTokens + c.cost!.completionTokens) * c.cost!.n, 0) / weight : null;
    const price = weight && costed.every((c) => c.cost!.price !== null) ? costed.reduce((s, c) => s + c.cost!.price! * c.cost!.n, 0) / weight : null;
    const answers = this.manifest.answers as { total?: unknown } | undefined;
    const benchmarkNames = (this.db.prepare('SELECT DISTINCT benchmark FROM answers').all() as { benchmark: string }[]).map((r) => r.benchmark);
    const items = (this.db.prepare('SELECT COUNT(DISTINCT itemKey) AS n FROM answers').get() as { n: number }).n;
    return {
      id: this.id,
      experiment: typeof this.manifest.experiment === 'string' ? this.manifest.experiment : config.name,
      startedAt: typeof this.manifest.startedAt === 'string' ? this.manifest.startedAt : null,
      finishedAt: typeof this.manifest.finishedAt === 'string' ? this.manifest.finishedAt : null,
      status: this.status(),
      stoppedBecause: typeof this.manifest.stoppedBecause === 'string' ? this.manifest.stoppedBecause : null,
      models: summary.models,
      conditions: summary.conditions,
      benchmarks: benchmarkNames.length ? benchmarkNames : [String((config.benchmark as { name?: unknown } | undefined)?.name ?? '')].filter(Boolean),
      answers: this.records.size,
      total: typeof answers?.total === 'number' ? answers.total : null,
      items,
      baseline: summary.baseline,
      best,
      cost: { tokens, price, estimated: costed.some((c) => c.cost!.estimatedTokens) },
      failures: summary.totals.generationFailed + summary.totals.judgeFailed,
      empty: summary.totals.empty,
      version: this.changes,
    };
  }

  detail(): RunDetail {
    const summary = this.currentSummary();
    if (this.summary?.detail && this.summary.value === summary) return this.summary.detail;
    // Cell diagnostics: from the recomputed summary when it carries them, else from summary.json.
    const stored = readJson(this.dir, RUN_FILES.summary);
    const storedCells = Array.isArray(stored?.cells) ? (stored!.cells as Record<string, unknown>[]) : [];
    const storedDiagnostics = new Map(storedCells.filter((c) => c.diagnostics !== undefined).map((c) => [`${c.model}\u0000${c.condition}`, c.diagnostics]));
    const cells: CellView[] = summary.cells.map((cell) => {
      const diagnostics = (cell as { diagnostics?: unknown }).diagnostics ?? storedDiagnostics.get(`${cell.model}\u0000${cell.condition}`);
      return {
        ...cell,
        paired: summary.paired.find((p) => p.model === cell.model && p.condition === cell.condition) ?? null,
        ...(diagnostics !== undefined ? { diagnostics } : {}),
      };
    });
    const groupValues: Record<string, string[]> = {};
    for (const row of this.db.prepare('SELECT DISTINCT groups FROM answers').all() as { groups: string }[]) {
      for (const [key, value] of Object.entries(JSON.parse(row.groups) as Record<string, string>)) {
        const list = (groupValues[key] ??= []);
        if (!list.includes(value)) list.push(value);
      }
    }
    for (const list of Object.values(groupValues)) list.sort();
    const detail: RunDetail = {
      run: this.listEntry(),
      baseline: summary.baseline,
      bootstrap: summary.bootstrap,
      cells,
      groupKeys: Object.keys(groupValues).sort(),
      groupValues,
      charts: summary.models.map((model) => ({ model, depth: depthChartSvg(summary, model), cost: costChartSvg(summary, model) })),
      byModality: summary.byModality ?? [],
      report: insideFile(this.dir, RUN_FILES.report) !== null,
    };
    if (this.summary) this.summary.detail = detail;
    return detail;
  }

  answers(query: AnswerQuery): AnswerPage {
    const where = ['a.model = @model', 'a.condition = @condition'];
    const params: Record<string, unknown> = { model: query.model, condition: query.condition };
    const [groupKey, groupValue] = splitGroup(query.group);
    if (groupKey !== null) {
      where.push(`json_extract(a.groups, @groupPath) = @groupValue`);
      params.groupPath = `$."${groupKey.replace(/["\\]/g, '')}"`;
      params.groupValue = groupValue;
    }
    if (query.scoreMin !== undefined) (where.push('a.score >= @scoreMin'), (params.scoreMin = query.scoreMin));
    if (query.scoreMax !== undefined) (where.push('a.score <= @scoreMax'), (params.scoreMax = query.scoreMax));
    if (query.status === 'scored') where.push(`a.status = 'scored'`);
    if (query.status === 'failed') where.push(`a.status != 'scored'`);
    if (query.status === 'empty') where.push('a.empty = 1');
    const needle = query.q?.trim().toLowerCase();
    if (needle) (where.push('instr(a.haystack, @needle) > 0'), (params.needle = needle));
    let join = '';
    let otherColumn = '';
    if (query.differsFrom) {
      join = 'JOIN answers o ON o.itemKey = a.itemKey AND o.model = a.model AND o.condition = @other';
      where.push('(o.score IS NOT a.score OR o.status != a.status)');
      params.other = query.differsFrom;
      otherColumn = ', o.score AS otherScore';
    }
    const order = query.sort === 'score' ? 'a.score IS NULL, a.score ASC, a.itemKey' : query.sort === '-score' ? 'a.score IS NULL, a.score DESC, a.itemKey' : 'a.itemKey';
    const sqlWhere = where.join(' AND ');
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 100;
    // One pass: the page's rows with the count of all matches (a search scans the texts once).
    const rows = this.db
      .prepare(
        `SELECT a.key, a.itemKey, a.itemId, a.category, a.question, a.answer, a.score, a.status, a.empty, a.tokens${otherColumn}, COUNT(*) OVER () AS total FROM answers a ${join} WHERE ${sqlWhere} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
      )
      .all({ ...params, limit, offset }) as (Omit<AnswerRow, 'empty'> & { empty: number; total: number })[];
    const total = rows.length ? rows[0]!.total : (this.db.prepare(`SELECT COUNT(*) AS n FROM answers a ${join} WHERE ${sqlWhere}`).get(params) as { n: number }).n;
    return { total, offset, rows: rows.map(({ total: _total, ...r }) => ({ ...r, empty: r.empty === 1 })) };
  }

  /** What Compare needs of every answer of one condition. */
  scoreRows(model: string, condition: string): ScoreRow[] {
    return this.db
      .prepare('SELECT key, itemKey, itemId, category, question, status, score, tokens, price, rcalls AS retrievalCalls, gcalls AS generationCalls, ms AS durationMs FROM answers WHERE model = ? AND condition = ?')
      .all(model, condition) as ScoreRow[];
  }

  /** One condition's answers as a bundle stores them (what its table shows, searches and compares). */
  bundleRows(model: string, condition: string): BundleRow[] {
    const rows = this.db
      .prepare(
        'SELECT key, itemKey, itemId, category, question, answer, score, status, empty, tokens, groups, haystack, price, rcalls AS retrievalCalls, gcalls AS generationCalls, ms AS durationMs FROM answers WHERE model = ? AND condition = ? ORDER BY itemKey',
      )
      .all(model, condition) as (Omit<BundleRow, 'empty' | 'groups'> & { empty: number; groups: string })[];
    return rows.map((r) => ({ ...r, empty: r.empty === 1, groups: JSON.parse(r.groups) as Record<string, string> }));
  }

  /** Every answer's key, in the order they were first written. */
  keys(): string[] {
    return (this.db.prepare('SELECT key FROM answers ORDER BY id').all() as { key: string }[]).map((r) => r.key);
  }

  cell(model: string, condition: string): CellView | null {
    return this.detail().cells.find((c) => c.model === model && c.condition === condition) ?? null;
  }

  get bootstrap(): { resamples: number; seed: number } {
    return { resamples: this.config?.scoring.bootstrapResamples ?? 1000, seed: this.config?.seed ?? 0 };
  }

  item(itemKey: string): StoredItem | null {
    const row = this.db.prepare('SELECT info FROM items WHERE itemKey = ?').get(itemKey) as { info: string } | undefined;
    return row ? (JSON.parse(row.info) as StoredItem) : null;
  }

  answer(key: string): AnswerDetail | null {
    const row = this.db.prepare('SELECT offset, length, itemKey FROM answers WHERE key = ?').get(key) as { offset: number; length: number; itemKey: string } | undefined;
    if (!row) return null;
    const record = this.readRecordAt(row.offset, row.length);
    if (!record) return null;
    const stored = this.item(row.itemKey);
    const others = (
      this.db.prepare('SELECT key, model, condition, score, status, answer FROM answers WHERE itemKey = ? AND key != ? ORDER BY id').all(row.itemKey, key) as Omit<OtherAnswer, 'run'>[]
    ).map((o) => ({ ...o, run: this.id }));
    return { run: this.id, record, item: stored ? itemInfo(stored) : null, passages: passagesOf(record, stored), images: imagesOf(record, stored, this.imageDirs()), others };
  }

  /** The manifest's `imageDirs`: the absolute folders this run's prompts may show pages from, and the only ones served. */
  imageDirs(): string[] {
    const dirs = this.manifest.imageDirs;
    return Array.isArray(dirs) ? dirs.filter((d): d is string => typeof d === 'string' && isAbsolute(d)) : [];
  }
}

/** The page images of a record's prompt, in prompt order, with the folder each is served from and whether it is gold evidence. */
export function imagesOf(record: ViewedRecord, stored: StoredItem | null, imageDirs: string[]): ImageView[] {
  // The record's own evidence (runs that carry it); else the benchmark's, when its file could be read.
  const evidence = record.evidence ?? (stored?.evidencePages ? { docId: stored.docId, pages: stored.evidencePages } : null);
  return record.prompt.flatMap((message, index) =>
    (message.images ?? []).map((image) => {
      const dir = imageDirs.indexOf(image.imageDir);
      return {
        dir: dir === -1 ? null : dir,
        path: image.path,
        docId: image.docId,
        page: image.page,
        width: image.width,
        height: image.height,
        bytes: image.bytes,
        message: index,
        evidence: Boolean(evidence && (evidence.docId ?? image.docId) === image.docId && evidence.pages.includes(image.page)),
      };
    }),
  );
}

function itemInfo(stored: StoredItem): ItemInfo {
  const gold = stored.goldChunkIds?.length ? stored.goldChunkIds : stored.evidencePages?.length && stored.docId ? stored.evidencePages.map((p) => `page:${p}`) : [];
  return {
    reference: stored.referenceAnswer ?? null,
    rubrics: stored.rubrics ?? null,
    answer: stored.answer === undefined ? null : Array.isArray(stored.answer) ? stored.answer.join(', ') : String(stored.answer),
    gold,
  };
}

/** The record's passages in rank order: in the final prompt or not, gold or not, and which gold claims each entails (diagnostics). */
export function passagesOf(record: ViewedRecord, stored: StoredItem | null): PassageView[] {
  const inPrompt = new Set(record.contextIds);
  const item = stored ? ({ ...stored, meta: {} } as unknown as BenchmarkItem) : null;
  const supports = goldClaimSupport(record.diagnostics);
  return [...record.retrieved]
    .sort((a, b) => a.rank - b.rank)
    .map((chunk) => ({
      ...chunk,
      inPrompt: inPrompt.has(chunk.id),
      gold: item ? isGoldChunk(item, chunk) : false,
      supportsGoldClaims: supports.get(chunk.id) ?? [],
    }));
}

/** Passage id → the gold claims (1-based) its diagnostics label as entailed by it. */
function goldClaimSupport(diagnostics: unknown): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (!diagnostics || typeof diagnostics !== 'object') return out;
  const d = diagnostics as { contextIds?: unknown; labels?: { goldVsChunks?: unknown } };
  const ids = Array.isArray(d.contextIds) ? (d.contextIds as unknown[]) : [];
  const rows = Array.isArray(d.labels?.goldVsChunks) ? (d.labels!.goldVsChunks as unknown[]) : [];
  rows.forEach((row, claim) => {
    if (!Array.isArray(row)) return;
    row.forEach((label, column) => {
      const id = ids[column];
      if (label === 'entailment' && typeof id === 'string') out.set(id, [...(out.get(id) ?? []), claim + 1]);
    });
  });
  return out;
}
