import Database from 'better-sqlite3';
import type { Chunk } from '../runFiles/corpusFiles.js';
import { DataFileError, InputError } from '../errors.js';
import { decodeVectorInto, dimensionOf, dotStored, encodeVector, type VectorEncoding } from './vectorEncoding.js';
import { norm } from './vectorMath.js';

/** A chunk with its dense position: labels are 0..N-1 in corpus order, shared by the HNSW graph and BM25 postings. */
export interface LabelledChunk extends Chunk {
  label: number;
}

/**
 * A chunk as an array row (raw: no per-row object with named keys to build before the chunk itself);
 * its text UTF-16LE bytes (stores written since format 2), or a string (older stores).
 */
type ChunkRow = [label: number, id: string, docId: string, title: string, text: Buffer | string, meta: string];
const CHUNK_COLUMNS = 'c.label, c.id, c.doc_id, c.title, c.text, c.meta';

/**
 * Chunk texts are stored as UTF-16LE BLOBs, not SQLite TEXT: for Chinese that is 2 bytes a character
 * instead of 3, and turning the bytes into a JS string is a copy — better-sqlite3's UTF-8 decoding of
 * CJK text cost ~20 µs per 500-character chunk, most of a 100-hit lookup (measured with scripts/bench-scale.ts).
 */
export function encodeText(text: string): Buffer {
  return Buffer.from(text, 'utf16le');
}

function decodeText(value: Buffer | string): string {
  return typeof value === 'string' ? value : value.toString('utf16le');
}

function rowToChunk([label, id, docId, title, text, meta]: ChunkRow): LabelledChunk {
  return { label, id, docId, title, text: decodeText(text), meta: JSON.parse(meta) };
}

/** The enclosing document named by `meta.doc_id` (LongHisDoc's book id), when it differs from the chunk's docId. */
function parentOf(chunk: Chunk): string | null {
  const parent = chunk.meta.doc_id;
  return typeof parent === 'string' && parent !== chunk.docId ? parent : null;
}

/** A stored BLOB as float32 (a copy: BLOB buffers may be reused by the driver). */
function blobToVector(blob: Buffer, encoding: VectorEncoding): Float32Array {
  const dimension = dimensionOf(blob, encoding);
  const out = new Float32Array(dimension);
  decodeVectorInto(blob, encoding, dimension, out);
  return out;
}

/**
 * The chunk store of an index directory (SQLite via better-sqlite3): chunk texts and metadata,
 * the label ↔ id mapping, doc → labels for document-scoped retrieval, and stored vectors (for exact
 * search, and so an interrupted build resumes without re-embedding). Rows are read on demand, so
 * millions of chunks never need to be in memory.
 */
export class ChunkStore {
  readonly db: Database.Database;
  /** How the vectors are stored (f32, f16, or i8 with a per-vector step); set once, before the first vector. */
  vectorEncoding: VectorEncoding;
  private readonly statements;

  private constructor(readonly path: string, readonly readonly: boolean) {
    this.db = new Database(path, { readonly, fileMustExist: readonly });
    // Memory-mapped reads (capped by SQLite at its compile-time maximum): a hit list's rows are found
    // without a read() system call per page — 4× faster chunk lookups at 50k chunks (scripts/bench-scale.ts).
    this.db.pragma('mmap_size = 1099511627776');
    if (!readonly) {
      // WAL + one transaction per batch: a crash keeps every committed batch and nothing torn.
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS chunks (
          label INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc_id TEXT NOT NULL,
          title TEXT NOT NULL, text TEXT NOT NULL, meta TEXT NOT NULL, parent_id TEXT);
        CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id, label);
        CREATE INDEX IF NOT EXISTS chunks_parent ON chunks (parent_id, label) WHERE parent_id IS NOT NULL;
        CREATE TABLE IF NOT EXISTS vectors (label INTEGER PRIMARY KEY, vec BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
    }
    // Stores written before the settings table existed hold float32 vectors.
    this.vectorEncoding = this.tableExists('settings')
      ? (((this.db.prepare("SELECT value FROM settings WHERE key = 'vector_encoding'").pluck().get() as VectorEncoding | undefined) ?? 'f32'))
      : 'f32';
    const hasVectors = this.tableExists('vectors');
    // Stores written before parent_id existed still open; they scope by doc_id only.
    const hasParent = (this.db.prepare('PRAGMA table_info(chunks)').all() as { name: string }[]).some((c) => c.name === 'parent_id');
    this.statements = {
      insertChunk: readonly
        ? undefined
        : this.db.prepare('INSERT INTO chunks (label, id, doc_id, title, text, meta, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      insertVector: readonly ? undefined : this.db.prepare('INSERT INTO vectors (label, vec) VALUES (?, ?)'),
      // Labels are contiguous from 0, so MAX+1 is the count at O(log n) (COUNT(*) scans the table).
      count: this.db.prepare('SELECT COALESCE(MAX(label) + 1, 0) AS n FROM chunks'),
      countVectors: hasVectors ? this.db.prepare('SELECT COALESCE(MAX(label) + 1, 0) AS n FROM vectors') : undefined,
      countDocs: this.db.prepare('SELECT COUNT(DISTINCT doc_id) AS n FROM chunks'),
      byLabel: this.db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks AS c WHERE label = ?`).raw(),
      // One round trip for a whole hit list: the labels travel as one JSON array (any length, one prepared statement).
      byLabelList: this.db.prepare(`SELECT ${CHUNK_COLUMNS} FROM json_each(?) AS j JOIN chunks AS c ON c.label = j.value`).raw(),
      byId: this.db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks AS c WHERE id = ?`).raw(),
      labelsOfDoc: hasParent
        ? this.db
            .prepare('SELECT label FROM chunks WHERE doc_id = @id UNION SELECT label FROM chunks WHERE parent_id = @id ORDER BY label')
            .pluck()
        : this.db.prepare('SELECT label FROM chunks WHERE doc_id = @id ORDER BY label').pluck(),
      vector: hasVectors ? this.db.prepare('SELECT vec FROM vectors WHERE label = ?').pluck() : undefined,
      vectorList: hasVectors ? this.db.prepare('SELECT v.label, v.vec FROM json_each(?) AS j JOIN vectors AS v ON v.label = j.value').raw() : undefined,
      allVectors: hasVectors ? this.db.prepare('SELECT label, vec FROM vectors ORDER BY label').raw() : undefined,
      vectorRange: hasVectors ? this.db.prepare('SELECT label, vec FROM vectors WHERE label >= ? AND label < ? ORDER BY label').raw() : undefined,
      allChunks: this.db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks AS c ORDER BY label`).raw(),
    };
  }

  static open(path: string, options: { readonly?: boolean } = {}): ChunkStore {
    return new ChunkStore(path, options.readonly ?? false);
  }

  /** Chooses the stored precision of vectors; refused once vectors are stored in another one. */
  setVectorEncoding(encoding: VectorEncoding): void {
    if (encoding === this.vectorEncoding) return;
    if (this.countVectors() > 0) {
      throw new InputError(`${this.path}: vectors are stored as ${this.vectorEncoding}; they cannot be appended as ${encoding}`);
    }
    this.db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('vector_encoding', ?)").run(encoding);
    this.vectorEncoding = encoding;
  }

  tableExists(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  /** Appends a batch atomically: chunks get labels `count() .. count()+n-1`; vectors (if any) go with them. */
  append(chunks: Chunk[], vectors?: ArrayLike<number>[], where?: (i: number) => string): void {
    this.appendEncoded(chunks, vectors?.map((vector) => encodeVector(vector, this.vectorEncoding)), where);
  }

  /** `append` with the vectors already encoded in the store's `vectorEncoding` (encodeVector). */
  appendEncoded(chunks: Chunk[], blobs?: (Buffer | undefined)[], where?: (i: number) => string): void {
    const insertChunk = this.statements.insertChunk!;
    const insertVector = this.statements.insertVector!;
    const start = this.count();
    this.db.transaction(() => {
      chunks.forEach((chunk, i) => {
        try {
          insertChunk.run(start + i, chunk.id, chunk.docId, chunk.title, encodeText(chunk.text), JSON.stringify(chunk.meta), parentOf(chunk));
        } catch (error) {
          if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
            throw new DataFileError(`${where?.(i) ?? 'chunk'}: duplicate chunk id "${chunk.id}"`);
          }
          throw error;
        }
        const blob = blobs?.[i];
        if (blob) insertVector.run(start + i, blob);
      });
    })();
  }

  count(): number {
    return (this.statements.count.get() as { n: number }).n;
  }

  countVectors(): number {
    return this.statements.countVectors ? (this.statements.countVectors.get() as { n: number }).n : 0;
  }

  countDocuments(): number {
    return (this.statements.countDocs.get() as { n: number }).n;
  }

  byLabel(label: number): LabelledChunk | undefined {
    const row = this.statements.byLabel.get(label) as ChunkRow | undefined;
    return row && rowToChunk(row);
  }

  /** The chunks of `labels`, in that order (one query for the whole list; a repeated label is read once). */
  byLabels(labels: number[]): LabelledChunk[] {
    if (labels.length === 0) return [];
    const byLabel = new Map<number, LabelledChunk>();
    for (const row of this.statements.byLabelList.all(JSON.stringify(labels)) as ChunkRow[]) {
      if (!byLabel.has(row[0])) byLabel.set(row[0], rowToChunk(row));
    }
    return labels.map((label) => {
      const chunk = byLabel.get(label);
      if (!chunk) throw new DataFileError(`${this.path}: no chunk with label ${label}`);
      return chunk;
    });
  }

  byId(id: string): LabelledChunk | undefined {
    const row = this.statements.byId.get(id) as ChunkRow | undefined;
    return row && rowToChunk(row);
  }

  /**
   * Labels of one document's chunks in corpus order: chunks whose docId is `docId`, or whose parent
   * document (`meta.doc_id`) is — LongHisDoc corpora have one document per page (`<doc_id>-p<page>`)
   * while questions name the book.
   */
  labelsOfDoc(docId: string): number[] {
    return this.statements.labelsOfDoc.all({ id: docId }) as number[];
  }

  vector(label: number): Float32Array | undefined {
    const blob = this.statements.vector?.get(label) as Buffer | undefined;
    return blob && blobToVector(blob, this.vectorEncoding);
  }

  /** The stored vectors of `labels` (one query), decoded into `out` row by row in the order given; throws for a missing one. */
  readVectors(labels: number[], dimension: number, out: Float32Array): void {
    this.storedBlobs(labels).forEach((blob, i) => decodeVectorInto(blob, this.vectorEncoding, dimension, out, i * dimension));
  }

  /** The stored BLOBs of `labels` (one query), in the order given; throws for a missing one. */
  private storedBlobs(labels: number[]): Buffer[] {
    if (!this.statements.vectorList) throw new DataFileError(`${this.path}: the store holds no vectors`);
    const byLabel = new Map(this.statements.vectorList.all(JSON.stringify(labels)) as [number, Buffer][]);
    return labels.map((label) => {
      const blob = byLabel.get(label);
      if (!blob) throw new DataFileError(`${this.path}: no vector for label ${label}`);
      return blob;
    });
  }

  /** Scores of `query` against the stored vectors of `labels` (one query; dot product, or cosine), in the order given. */
  scoreStored(labels: number[], query: Float32Array, cosine: boolean): number[] {
    const blobs = this.storedBlobs(labels);
    const queryNorm = cosine ? norm(query) || 1 : 1;
    return blobs.map((blob) => {
      const { dot, normSquared } = dotStored(blob, this.vectorEncoding, query, cosine);
      return cosine ? dot / (queryNorm * (Math.sqrt(normSquared) || 1)) : dot;
    });
  }

  /** Streams stored vectors in label order (constant memory). */
  *vectors(): Generator<[number, Float32Array]> {
    if (!this.statements.allVectors) return;
    for (const [label, blob] of this.statements.allVectors.iterate() as Iterable<[number, Buffer]>) {
      yield [label, blobToVector(blob, this.vectorEncoding)];
    }
  }

  /**
   * Copies the vectors of labels `start .. start+rows-1` into `out` (row-major, `dimension` floats a row):
   * one range read, for block-wise exact search. Throws when a label in the range has no vector.
   */
  readVectorBlock(start: number, rows: number, dimension: number, out: Float32Array): void {
    if (!this.statements.vectorRange) throw new DataFileError(`${this.path}: the store holds no vectors`);
    let expected = start;
    for (const [label, blob] of this.statements.vectorRange.iterate(start, start + rows) as Iterable<[number, Buffer]>) {
      if (label !== expected) throw new DataFileError(`${this.path}: no vector for label ${expected}`);
      const stored = dimensionOf(blob, this.vectorEncoding);
      if (stored !== dimension) throw new DataFileError(`${this.path}: vector ${label} has ${stored} dimensions, expected ${dimension}`);
      decodeVectorInto(blob, this.vectorEncoding, dimension, out, (label - start) * dimension);
      expected++;
    }
    if (expected !== start + rows) throw new DataFileError(`${this.path}: no vector for label ${expected}`);
  }

  /** Streams chunks in label order (constant memory). */
  *chunks(): Generator<LabelledChunk> {
    for (const row of this.statements.allChunks.iterate() as Iterable<ChunkRow>) yield rowToChunk(row);
  }

  /** Folds the WAL into the main file so a finished index is one self-contained file. */
  finish(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.pragma('journal_mode = DELETE');
  }

  close(): void {
    this.db.close();
  }
}
