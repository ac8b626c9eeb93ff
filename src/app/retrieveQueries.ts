import { existsSync } from 'node:fs';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { readJsonl } from '../io/jsonl.js';
import { retrievalMetrics, type RetrievalMetrics } from '../scoring/retrievalMetrics.js';
import { corpusDuplicates, keptGoldId } from '../retrieval/goldChunks.js';
import type { Retriever, RetrievedChunk } from '../retrieval/types.js';

/** One line of a `hisrag retrieve --queries` file: the question, an id for the output (default: its line number), the document to search within, gold chunk ids. */
export const QueryLineSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    query: z.string().trim().min(1, { error: 'expected the question' }),
    doc: z.string().min(1).optional(),
    gold: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type QueryLine = z.infer<typeof QueryLineSchema>;

/** One line of `--gold <file>`: a query's id and its gold chunk ids. */
export const GoldLineSchema = z.object({ id: z.union([z.string().min(1), z.number()]), gold: z.array(z.string().min(1)) }).strict();

/** What a query file's run writes per query: its top k, and with gold, the metrics at k. */
export interface QueryResult {
  id: string;
  query: string;
  hits: { rank: number; id: string; score: number; docId: string; title: string }[];
  /** The gold ids as counted: a dropped duplicate replaced by its kept twin. */
  gold?: string[];
  metrics?: RetrievalMetrics;
}

/** Queries retrieved together (one embedding batch for a dense retriever). */
const QUERIES_A_BATCH = 64;

export async function readQueryFile(path: string, goldPath?: string): Promise<QueryLine[]> {
  for (const [option, file] of [['--queries', path], ['--gold', goldPath]] as const) {
    if (file !== undefined && !existsSync(file)) throw new InputError(`${option}: ${file}: no such file`);
  }
  const queries: QueryLine[] = [];
  for await (const line of readJsonl(path, QueryLineSchema)) queries.push(line);
  if (goldPath) {
    const gold = new Map<string, string[]>();
    for await (const line of readJsonl(goldPath, GoldLineSchema)) gold.set(String(line.id), line.gold);
    for (const [i, query] of queries.entries()) {
      const found = gold.get(String(query.id ?? i + 1));
      if (found) query.gold = found;
    }
  }
  return queries;
}

/**
 * Retrieves the top k of every query, `QUERIES_A_BATCH` at a time (one batch each where the retriever
 * batches), calling `write` with each query's result in file order. Gold ids of exact duplicates the
 * index's corpus dropped count as their kept twins (the corpus manifest's `duplicateOf`).
 */
export async function retrieveQueryFile(
  retriever: Retriever,
  queries: QueryLine[],
  k: number,
  options: { indexDir: string; write: (result: QueryResult) => void },
): Promise<QueryResult[]> {
  const duplicateOf = queries.some((q) => q.gold) ? corpusDuplicates(options.indexDir) : {};
  const results: QueryResult[] = [];
  for (let start = 0; start < queries.length; start += QUERIES_A_BATCH) {
    const batch = queries.slice(start, start + QUERIES_A_BATCH);
    const asked = batch.map((q, i) => ({ text: q.query, itemId: String(q.id ?? start + i + 1), ...(q.doc && { docId: q.doc }) }));
    const lists: RetrievedChunk[][] = retriever.retrieveBatch
      ? await retriever.retrieveBatch(asked, k)
      : await Promise.all(asked.map((query) => retriever.retrieve(query, k)));
    for (const [i, query] of batch.entries()) {
      const hits = lists[i]!.slice(0, k);
      const result: QueryResult = {
        id: asked[i]!.itemId,
        query: query.query,
        hits: hits.map((hit, rank) => ({ rank: rank + 1, id: hit.id, score: hit.score, docId: hit.docId, title: hit.title })),
      };
      if (query.gold) {
        result.gold = query.gold.map((id) => keptGoldId(id, duplicateOf));
        result.metrics = retrievalMetrics(hits.map((hit) => hit.id), result.gold, k);
      }
      options.write(result);
      results.push(result);
    }
  }
  return results;
}

/** Means of the metrics over the queries with gold: `recall@10 0.700, nDCG@10 0.612, MRR 0.583 (… over 20 queries with gold)`. */
export function metricsLine(results: QueryResult[], k: number): string | undefined {
  const scored = results.filter((r) => r.metrics && r.gold!.length > 0);
  if (scored.length === 0) return undefined;
  const mean = (key: keyof RetrievalMetrics) => (scored.reduce((sum, r) => sum + r.metrics![key], 0) / scored.length).toFixed(3);
  return `recall@${k} ${mean('recall')}, nDCG@${k} ${mean('ndcg')}, MRR@${k} ${mean('mrr')}, precision@${k} ${mean('precision')}, AP@${k} ${mean('ap')} (means over ${scored.length} queries with gold)`;
}
