import { createHash } from 'node:crypto';
import type { RetrievalQuery, RetrievedChunk, Retriever } from './types.js';

/** Results a retriever computed ahead of the run (its plan), each with how many times the plan asked for it. */
interface Kept<T> {
  result: Promise<T>;
  remaining: number;
}

interface HandOff {
  keeping: boolean;
  lists: Map<string, Kept<RetrievedChunk[]>>;
  scores: Map<string, Kept<number[]>>;
}

const handOffs = new WeakMap<Retriever, HandOff>();

const listKey = (query: RetrievalQuery, k: number) => JSON.stringify([query.itemId ?? null, query.docId ?? null, query.text, k]);
// Sentence lists are long: their key is a digest.
const scoresKey = (query: string, texts: string[]) => createHash('sha256').update(JSON.stringify([query, texts])).digest('base64');

function keep<T>(map: Map<string, Kept<T>>, key: string, compute: () => Promise<T>): Promise<T> {
  const kept = map.get(key);
  if (kept) {
    kept.remaining++;
    return kept.result;
  }
  const result = compute();
  map.set(key, { result, remaining: 1 });
  // A failed call is not handed on: the run tries it itself.
  result.catch(() => map.delete(key));
  return result;
}

function take<T>(map: Map<string, Kept<T>>, key: string): Promise<T> | undefined {
  const kept = map.get(key);
  if (!kept) return undefined;
  if (--kept.remaining <= 0) map.delete(key);
  return kept.result;
}

/**
 * A retriever that hands on what it computed ahead of the run: lists and relevance scores computed
 * while `computeAheadOfRun` runs (the run's plan) are kept, and the run's same requests take them
 * instead of computing them again, as many times as the plan asked.
 */
export function withHandOff(base: Retriever): Retriever {
  const state: HandOff = { keeping: false, lists: new Map(), scores: new Map() };
  const retrieve = (query: RetrievalQuery, k: number): Promise<RetrievedChunk[]> => {
    const key = listKey(query, k);
    if (state.keeping) return keep(state.lists, key, () => base.retrieve(query, k));
    return take(state.lists, key) ?? base.retrieve(query, k);
  };
  const wrapped: Retriever = {
    name: base.name,
    ...(base.depthDependent !== undefined ? { depthDependent: base.depthDependent } : {}),
    retrieve,
    ...(base.firstStage ? { firstStage: (query: RetrievalQuery) => base.firstStage!(query) } : {}),
    ...(base.retrieveBatch
      ? {
          async retrieveBatch(queries: RetrievalQuery[], k: number): Promise<RetrievedChunk[][]> {
            if (state.keeping) {
              const all = base.retrieveBatch!(queries, k);
              all.catch(() => {}); // its failure reaches the callers through the lists taken from it
              return Promise.all(queries.map((query, i) => keep(state.lists, listKey(query, k), () => all.then((lists) => lists[i]!))));
            }
            const found = queries.map((query) => take(state.lists, listKey(query, k)));
            const missing = queries.filter((_, i) => !found[i]);
            const fetched = missing.length ? base.retrieveBatch!(missing, k) : Promise.resolve([]);
            let next = 0;
            return Promise.all(
              found.map((kept) => {
                if (kept) return kept;
                const position = next++;
                return fetched.then((lists) => lists[position]!);
              }),
            );
          },
        }
      : {}),
    ...(base.relevance
      ? {
          relevance(query: string, texts: string[]): Promise<number[]> {
            const key = scoresKey(query, texts);
            if (state.keeping) return keep(state.scores, key, () => base.relevance!(query, texts));
            return take(state.scores, key) ?? base.relevance!(query, texts);
          },
        }
      : {}),
    describe: () => base.describe(),
    close: () => {
      state.lists.clear();
      state.scores.clear();
      return base.close();
    },
  };
  handOffs.set(wrapped, state);
  return wrapped;
}

/**
 * Runs `work` with the retrievers (those made `withHandOff`) keeping what they compute, for the
 * run to take instead of computing it again. When `work` fails, nothing is kept.
 */
export async function computeAheadOfRun<T>(retrievers: Retriever[], work: () => Promise<T>): Promise<T> {
  const states = [...new Set(retrievers.map((r) => handOffs.get(r)).filter((s): s is HandOff => s !== undefined))];
  for (const s of states) s.keeping = true;
  try {
    return await work();
  } catch (error) {
    for (const s of states) {
      s.lists.clear();
      s.scores.clear();
    }
    throw error;
  } finally {
    for (const s of states) s.keeping = false;
  }
}
