import { readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { isGoldChunk } from '../diagnostics/evidence.js';
import { RunItemRecordSchema, type RunItemRecord } from '../runFiles/itemRecord.js';
import { clusterKeyOf } from '../experiment/clusterKey.js';
import type { AnswerDetail, AnswerPage, AnswerQuery, AnswerRow, ImageView, ItemInfo, OtherAnswer, PassageView } from './api.js';
import type { IndexCache, StoredItem } from './indexCache.js';
import { splitGroup, type BundleRow, type ScoreRow } from './queries.js';
import { withItemsFile } from './runFileReads.js';

/** The queries over a run's index: answer pages (filters, search), Compare's and a bundle's rows, one answer's page. */

/** A record as the answer page shows it: `diagnostics` as the file has it, whatever the record schema knows. */
type ViewedRecord = Omit<RunItemRecord, 'diagnostics'> & { diagnostics?: unknown };

/** A page of one condition's answers, filtered, searched and sorted. */
export function answersPage(cache: IndexCache, query: AnswerQuery): AnswerPage {
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
  // A search goes through the search index by name: SQLite's planner, left to itself, may take the
  // narrower cell index, which reads every row of the table for its text.
  let from = 'answers a';
  if (needle) {
    where.push('instr(a.haystack, @needle) > 0');
    params.needle = needle;
    cache.ensureSearchIndex();
    from = 'answers a INDEXED BY answers_search';
  }
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
  // The page's rows, then the count: a search's count reads only the search index, and the page
  // reads the table for its own rows alone (a count over the page's query would read every match's row).
  const rows = cache.db
    .prepare(
      `SELECT a.key, a.itemKey, a.itemId, a.category, a.question, a.answer, a.score, a.status, a.empty, a.tokens${otherColumn} FROM ${from} ${join} WHERE ${sqlWhere} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
    )
    .all({ ...params, limit, offset }) as (Omit<AnswerRow, 'empty'> & { empty: number })[];
  const total = (cache.db.prepare(`SELECT COUNT(*) AS n FROM ${from} ${join} WHERE ${sqlWhere}`).get(params) as { n: number }).n;
  return { total, offset, rows: rows.map((r) => ({ ...r, empty: r.empty === 1 })) };
}

/** The columns Compare needs of an answer; a bundle's rows add what its table shows and searches. */
const SCORE_COLUMNS = 'key, itemKey, itemId, category, question, status, score, slim';

/** What Compare needs of every answer of one condition (its sample and cluster key from the answer's slim record). */
export function scoreRows(db: Database.Database, model: string, condition: string, clusterField: string | null): ScoreRow[] {
  const rows = db
    .prepare(`SELECT ${SCORE_COLUMNS} FROM answers WHERE model = ? AND condition = ?`)
    .all(model, condition) as (ScoreRow & { slim: string })[];
  return rows.map(withSampleAndCluster(clusterField));
}

/** One condition's answers as a bundle stores them (what its table shows, searches and compares). */
export function bundleRows(db: Database.Database, model: string, condition: string, clusterField: string | null): BundleRow[] {
  const rows = db
    .prepare(`SELECT ${SCORE_COLUMNS}, answer, empty, tokens, groups, haystack FROM answers WHERE model = ? AND condition = ? ORDER BY itemKey`)
    .all(model, condition) as (Omit<BundleRow, 'empty' | 'groups'> & { empty: number; groups: string; slim: string })[];
  const sampled = withSampleAndCluster(clusterField);
  return rows.map((r) => sampled({ ...r, empty: r.empty === 1, groups: JSON.parse(r.groups) as Record<string, string> }));
}

/** Replaces a row's slim record by its sample and its cluster key under the summary's cluster field. */
function withSampleAndCluster(clusterField: string | null): <R extends { slim: string }>(row: R) => Omit<R, 'slim'> & { sample: number; cluster?: string } {
  const clusterKey = clusterField ? clusterKeyOf(clusterField) : null;
  return ({ slim, ...row }) => {
    const record = JSON.parse(slim) as RunItemRecord;
    return { ...row, sample: record.sample ?? 0, ...(clusterKey ? { cluster: clusterKey(record) } : {}) };
  };
}

/** Every answer's key, in the order they were first written. */
export function answerKeys(db: Database.Database): string[] {
  return (db.prepare('SELECT key FROM answers ORDER BY id').all() as { key: string }[]).map((r) => r.key);
}

/** The record at `offset` of items.jsonl, read whole for its page. */
function readRecordAt(dir: string, offset: number, length: number): ViewedRecord | null {
  return withItemsFile(dir, (fd) => {
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
    }
  });
}

/** One answer's page: its record, the item's reference and gold, passages, page images and the other answers to the same item. */
export function answerDetail(cache: IndexCache, run: { id: string; dir: string; imageDirs: string[] }, key: string): AnswerDetail | null {
  const row = cache.db.prepare('SELECT offset, length, itemKey FROM answers WHERE key = ?').get(key) as { offset: number; length: number; itemKey: string } | undefined;
  if (!row) return null;
  const record = readRecordAt(run.dir, row.offset, row.length);
  if (!record) return null;
  const stored = cache.storedItem(row.itemKey);
  const others = (
    cache.db.prepare('SELECT key, model, condition, score, status, answer FROM answers WHERE itemKey = ? AND key != ? ORDER BY id').all(row.itemKey, key) as Omit<OtherAnswer, 'run'>[]
  ).map((o) => ({ ...o, run: run.id }));
  return { run: run.id, record, item: stored ? itemInfo(stored) : null, passages: passagesOf(record, stored), images: imagesOf(record, stored, run.imageDirs), others };
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

