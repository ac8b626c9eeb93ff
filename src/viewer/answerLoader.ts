import { createHash } from 'node:crypto';
import { fstatSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { RunItemRecordSchema, type RunItemRecord } from '../runFiles/itemRecord.js';
import type { IndexCounters, IndexState } from './api.js';
import { metaValue, type IndexCache, type StoredItem } from './indexCache.js';
import { haystackOf } from './queries.js';
import { withItemsFile } from './runFileReads.js';

/** Characters of question and answer kept in a table row (the answer page reads the record whole). */
const SNIPPET = 160;
/** items.jsonl is indexed in steps of about this many bytes (one transaction each): memory stays bounded whatever the file's size, and requests are answered between steps. */
const STEP_BYTES = 1024 * 1024;
/** Bytes before the indexed offset whose hash tells a file rewritten in place from one appended to. */
const TAIL = 4096;

/** What the summary needs of a record, without its texts (prompt, passages, trace, response): a few hundred bytes. */
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

/** Answers, distinct questions and benchmark names in an index. */
type AnswerCounts = { n: number; items: number; benchmarks: string[] };

/**
 * Loads a run's answers into its index cache in steps from the offset indexed so far, one
 * transaction each; a file truncated, rewritten or replaced since starts the index over. Also loads
 * the benchmark's items (references for search) once per cache.
 */
export class AnswerLoader {
  /** The file as last seen: a change of size, mtime or inode is checked against the index. */
  private seen = { size: -1, mtimeMs: -1, ino: -1 };
  private answerCount: (AnswerCounts & { changes: number }) | null = null;

  constructor(
    private readonly dir: string,
    private readonly cache: IndexCache,
    private readonly counters: IndexCounters,
    /** Called whenever the index changed; `version()` counts the changes. */
    private readonly changed: () => void,
    private readonly version: () => number,
  ) {}

  /** The index, started over: its items.jsonl was truncated or replaced. */
  private rebuild(): void {
    this.cache.db.transaction(() => {
      this.cache.db.exec('DELETE FROM answers');
      this.cache.writeMeta({ offset: 0, tail: '', badLines: 0, dev: 0, ino: 0, counts: '' });
    })();
    this.tornTail = -1;
    this.counters.rebuilds++;
    this.changed();
  }

  private tailHash(fd: number, offset: number): string {
    const start = Math.max(0, offset - TAIL);
    const buffer = Buffer.alloc(offset - start);
    const read = readSync(fd, buffer, 0, buffer.length, start);
    return createHash('sha1').update(buffer.subarray(0, read)).digest('hex');
  }

  /**
   * The size of items.jsonl (0: none); when it changed since last seen, the index is started over
   * unless its bytes are still the file's first (same device and inode, same bytes before the offset).
   */
  checkFile(): number {
    const size = withItemsFile(this.dir, (fd) => {
      const st = fstatSync(fd);
      if (st.size === this.seen.size && st.mtimeMs === this.seen.mtimeMs && st.ino === this.seen.ino) return st.size;
      const { offset, dev, ino, tail } = this.cache.meta;
      if (offset > 0 && !(st.dev === dev && st.ino === ino && st.size >= offset && this.tailHash(fd, offset) === tail)) this.rebuild();
      this.seen = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
      return st.size;
    });
    if (size !== null) return size;
    if (this.cache.meta.offset > 0) this.rebuild();
    this.seen = { size: 0, mtimeMs: -1, ino: -1 };
    return 0;
  }

  /** Bytes of items.jsonl not indexed yet (a last line without its newline counts until it is read). */
  get pending(): number {
    return Math.max(0, this.seen.size - this.cache.meta.offset);
  }

  /** Every complete line indexed: what is left, if anything, is a line still being written. */
  get ready(): boolean {
    return this.pending === 0 || this.tornTail === this.seen.size;
  }

  /** The file size at which the last step found only an unfinished line after the offset. */
  private tornTail = -1;

  get indexState(): IndexState {
    return { state: this.ready ? 'ready' : 'indexing', bytes: this.cache.meta.offset, totalBytes: Math.max(this.seen.size, 0), answers: this.counts().n };
  }

  /** Whether the benchmark's items (references, for search) still have to be loaded before the first answers. */
  get needsItems(): boolean {
    return !this.cache.meta.itemsLoaded;
  }

  /** Loads the benchmark's items into the index before the first answers, so that references are searchable. */
  async loadItems(specs: readonly { name?: string }[]): Promise<void> {
    if (this.cache.meta.itemsLoaded) return;
    // The registry imports every benchmark's loader: with the first run whose items are loaded, not at start.
    const { benchmarks } = await import('../benchmarks/registry.js');
    const insert = this.cache.db.prepare('INSERT OR REPLACE INTO items (itemKey, info) VALUES (?, ?)');
    for (const spec of specs) {
      try {
        const benchmark = await benchmarks.create(spec as { name: string } & Record<string, unknown>, undefined);
        const items = await benchmark.load();
        if (this.cache.closed) return;
        this.cache.db.transaction(() => {
          for (const { referenceAnswer, rubrics, answer, goldChunkIds, evidencePages, docId, ...item } of items) {
            // JSON leaves the absent fields out.
            const stored: StoredItem = { referenceAnswer: referenceAnswer || undefined, rubrics: rubrics || undefined, answer, goldChunkIds, evidencePages, docId: docId || undefined };
            insert.run(`${item.benchmark}:${item.id}`, JSON.stringify(stored));
          }
        })();
      } catch {
        // The run directory is what the viewer shows; a benchmark file elsewhere is a bonus.
      }
    }
    if (!this.cache.closed) this.cache.writeMeta({ itemsLoaded: true });
  }

  /** Indexes the next complete lines of items.jsonl (about `maxBytes`) in one transaction; whether more is left. */
  indexStep(maxBytes = STEP_BYTES): boolean {
    const size = this.checkFile();
    if (this.ready) return false;
    return withItemsFile(this.dir, (fd) => this.stepFrom(fd, size, maxBytes)) ?? false;
  }

  private stepFrom(fd: number, size: number, maxBytes: number): boolean {
    const st = fstatSync(fd);
    const start = this.cache.meta.offset;
    let buffer = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(1, st.size - start)));
    let filled = 0;
    let lastNewline = -1;
    // Read a piece; a line longer than it grows the buffer until the line's newline is in.
    for (;;) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
      if (read <= 0) break;
      filled += read;
      lastNewline = buffer.lastIndexOf(0x0a, filled - 1);
      if (lastNewline !== -1 || start + filled >= st.size) break;
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    if (lastNewline === -1) {
      // Only a line being written is left: ready until the file grows.
      this.tornTail = size;
      return false;
    }
    if (start === 0 || this.cache.meta.dev !== st.dev || this.cache.meta.ino !== st.ino) this.cache.writeMeta({ dev: st.dev, ino: st.ino });
    const end = start + lastNewline + 1;
    let lines = 0;
    let bad = 0;
    const { upsert } = this.cache.statements();
    const step = this.cache.db.transaction(() => {
      // Another viewer on the same cache may have indexed these bytes meanwhile: take its state.
      const offset = Number(metaValue(this.cache.db, 'offset') ?? 0);
      if (offset !== start) return false;
      // Each line decoded on its own, between the piece's newline bytes (a newline byte never occurs
      // inside a UTF-8 sequence): one string of the whole piece would be a large object, old
      // garbage until the next full GC.
      let from = 0;
      const benchmarkNames = new Set(this.storedCounts()?.benchmarks ?? []);
      while (from <= lastNewline) {
        const nl = buffer.indexOf(0x0a, from);
        if (nl - from > 0) {
          const text = buffer.toString('utf8', from, nl);
          if (text.trim()) {
            lines++;
            const benchmark = this.insertLine(upsert, text, start + from, nl - from);
            if (benchmark === null) bad++;
            else benchmarkNames.add(benchmark);
          }
        }
        from = nl + 1;
      }
      this.cache.writeMeta({ offset: end, tail: this.tailHash(fd, end), badLines: this.cache.meta.badLines + bad, counts: JSON.stringify(this.countNow([...benchmarkNames])) });
      return true;
    });
    if (step.immediate()) {
      if (start > 0 && !this.extendedOnce) this.counters.extended++;
      this.extendedOnce = true;
      this.counters.lines += lines;
      this.counters.bytes += end - start;
    } else {
      this.cache.meta = this.cache.readMeta();
    }
    this.changed();
    return !this.ready;
  }

  private extendedOnce = false;

  /** One line of items.jsonl into the index: its benchmark, or null when it is not a valid record (left out, counted). */
  private insertLine(upsert: Database.Statement, text: string, offset: number, length: number): string | null {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    const parsed = RunItemRecordSchema.safeParse(value);
    if (!parsed.success) return null;
    const r = parsed.data;
    const itemKey = `${r.benchmark}:${r.itemId}`;
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
      offset,
      length,
      haystack: haystackOf(r.question, answer, this.cache.storedItem(itemKey)?.referenceAnswer ?? null),
      slim: JSON.stringify(slim(r)),
    });
    return r.benchmark;
  }

  /** Counted in the step's transaction, over the indexes (the table's rows are not read). */
  private countNow(benchmarks: string[]): AnswerCounts {
    const n = (this.cache.db.prepare('SELECT COUNT(*) AS n FROM answers').get() as { n: number }).n;
    const items = (this.cache.db.prepare('SELECT COUNT(DISTINCT itemKey) AS n FROM answers').get() as { n: number }).n;
    return { n, items, benchmarks: [...benchmarks].sort() };
  }

  private storedCounts(): AnswerCounts | null {
    try {
      return this.cache.meta.counts ? (JSON.parse(this.cache.meta.counts) as AnswerCounts) : null;
    } catch {
      return null;
    }
  }

  counts(): AnswerCounts {
    if (this.answerCount?.changes === this.version()) return this.answerCount;
    let counted = this.storedCounts() ?? (this.cache.created ? null : { n: 0, items: 0, benchmarks: [] });
    if (!counted) {
      // An empty index, or a cache without its counts: counted once (the benchmark names scan the table).
      const names = (this.cache.db.prepare('SELECT DISTINCT benchmark FROM answers').all() as { benchmark: string }[]).map((r) => r.benchmark);
      counted = this.countNow(names);
      if (counted.n > 0) this.cache.writeMeta({ counts: JSON.stringify(counted) });
    }
    this.answerCount = { changes: this.version(), ...counted };
    return this.answerCount;
  }
}
