import type { ChunkStore } from '../chunkStore.js';
import type { Bm25Params } from '../../runFiles/indexManifest.js';
import { TopK, type Scored } from '../topK.js';
import { passageText } from '../passageText.js';
import { tokenize } from './tokenizer.js';

/**
 * Okapi BM25 with Lucene's idf (classic (k1 + 1) numerator), repeated query terms counted once:
 *   score(q, d) = Σ_t idf(t) · tf(t,d) · (k1 + 1) / (tf(t,d) + k1 · (1 − b + b · |d| / avgdl))
 *   idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 * Document-scoped search keeps the corpus-wide statistics and only restricts which chunks are ranked.
 */
export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export function bm25TermScore(tf: number, docLength: number, avgdl: number, idf: number, k1: number, b: number): number {
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * docLength) / avgdl));
}

/**
 * Builds the persisted inverted index inside the chunk store's database: `bm25_terms` (term → df and
 * postings as little-endian uint32 pairs label, tf) and `bm25_doclens` (one uint32 per label).
 * Postings are gathered in memory (one pass over the chunks), then written in one transaction, so a
 * rerun after an interruption simply rebuilds them.
 */
export function buildBm25(
  store: ChunkStore,
  params: Bm25Params,
  onChunk?: () => void,
): { terms: number; avgdl: number } {
  const n = store.count();
  const docLengths = new Uint32Array(n);
  const postings = new Map<string, number[]>();
  for (const chunk of store.chunks()) {
    const terms = tokenize(passageText(chunk, 'title+text'), params);
    docLengths[chunk.label] = terms.length;
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    for (const [term, count] of tf) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push(chunk.label, count);
    }
    onChunk?.();
  }
  const db = store.db;
  db.exec(`
    DROP TABLE IF EXISTS bm25_terms; DROP TABLE IF EXISTS bm25_doclens;
    CREATE TABLE bm25_terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL, postings BLOB NOT NULL) WITHOUT ROWID;
    CREATE TABLE bm25_doclens (id INTEGER PRIMARY KEY, lens BLOB NOT NULL);`);
  const insert = db.prepare('INSERT INTO bm25_terms (term, df, postings) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const [term, list] of postings) {
      const packed = Uint32Array.from(list);
      insert.run(term, list.length / 2, Buffer.from(packed.buffer));
    }
    db.prepare('INSERT INTO bm25_doclens (id, lens) VALUES (0, ?)').run(Buffer.from(docLengths.buffer));
  })();
  let total = 0;
  for (const length of docLengths) total += length;
  return { terms: postings.size, avgdl: n > 0 ? total / n : 0 };
}

/** Query side of the persisted BM25 index; postings are read per query term from SQLite. */
export class Bm25Searcher {
  private readonly n: number;
  private readonly avgdl: number;
  /** k1 · (1 − b + b·|d|/avgdl) per label, precomputed. */
  private readonly lengthNorm: Float64Array;
  private readonly termStatement;
  private readonly accumulator: Float64Array;

  constructor(
    store: ChunkStore,
    readonly params: Bm25Params,
  ) {
    const row = store.db.prepare('SELECT lens FROM bm25_doclens WHERE id = 0').get() as { lens: Buffer } | undefined;
    if (!row) throw new Error(`${store.path}: no BM25 index in this store`);
    const lens = new Uint32Array(Uint8Array.from(row.lens).buffer);
    this.n = lens.length;
    let total = 0;
    for (const length of lens) total += length;
    this.avgdl = this.n > 0 ? total / this.n : 0;
    this.lengthNorm = new Float64Array(this.n);
    const { k1, b } = params;
    for (let i = 0; i < this.n; i++) this.lengthNorm[i] = k1 * (1 - b + (b * lens[i]!) / (this.avgdl || 1));
    this.termStatement = store.db.prepare('SELECT df, postings FROM bm25_terms WHERE term = ?');
    this.accumulator = new Float64Array(this.n);
  }

  /** Best k chunks for `query`; only labels in `scope` when given. Chunks sharing no term are not returned. */
  search(query: string, k: number, scope?: ReadonlySet<number>): Scored[] {
    const terms = [...new Set(tokenize(query, this.params))];
    const acc = this.accumulator;
    const touched: number[] = [];
    const k1plus1 = this.params.k1 + 1;
    for (const term of terms) {
      const row = this.termStatement.get(term) as { df: number; postings: Buffer } | undefined;
      if (!row) continue;
      const idf = bm25Idf(this.n, row.df);
      const postings = new Uint32Array(Uint8Array.from(row.postings).buffer);
      for (let i = 0; i < postings.length; i += 2) {
        const label = postings[i]!;
        if (scope && !scope.has(label)) continue;
        const tf = postings[i + 1]!;
        if (acc[label] === 0) touched.push(label);
        acc[label]! += (idf * tf * k1plus1) / (tf + this.lengthNorm[label]!);
      }
    }
    const top = new TopK(k);
    for (const label of touched) {
      top.push(label, acc[label]!);
      acc[label] = 0;
    }
    return top.sorted();
  }

  /**
   * BM25 score of each text against `query`, every text scored as if it were a chunk of this index
   * (the index's idf and average length): how a refiner ranks sentences by this retriever's measure.
   */
  scoreTexts(query: string, texts: string[]): number[] {
    const idf = new Map<string, number>();
    for (const term of new Set(tokenize(query, this.params))) {
      const row = this.termStatement.get(term) as { df: number } | undefined;
      // A term the corpus never saw is as rare as can be: df 0.
      idf.set(term, bm25Idf(this.n, row?.df ?? 0));
    }
    const { k1, b } = this.params;
    return texts.map((text) => {
      const terms = tokenize(text, this.params);
      const tf = new Map<string, number>();
      for (const term of terms) if (idf.has(term)) tf.set(term, (tf.get(term) ?? 0) + 1);
      let score = 0;
      for (const [term, count] of tf) score += bm25TermScore(count, terms.length, this.avgdl || 1, idf.get(term)!, k1, b);
      return score;
    });
  }
}
