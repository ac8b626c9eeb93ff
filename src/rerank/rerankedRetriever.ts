import { z } from 'zod';
import { ConfigError, formatZodIssues } from '../errors.js';
import { passageText } from '../index/passageText.js';
import type { RetrieverContext } from '../retrieval/registry.js';
import { retrievers } from '../retrieval/registry.js';
import type { RetrievalQuery, RetrievedChunk, Retriever } from '../retrieval/types.js';
import { rerankers } from './registry.js';
import type { Reranker } from './types.js';

/**
 * A retriever spec's `rerank` section: the reranker (`name` and its params) plus what the
 * wrapper itself uses — how many first-stage candidates to rerank and what text to show.
 */
const RerankWrapperSchema = z.object({
  candidates: z.number().int().positive().default(100).describe('First-stage candidates reranked per question (at least the deepest k is always taken)'),
  passage: z.enum(['title+text', 'text']).default('title+text').describe('Passage text given to the reranker: `title\\ntext` (default) or the text alone'),
});

type Spec = { name: string } & Record<string, unknown>;

/** Splits `{ name, …, rerank: {…} }` into the first-stage spec and the rerank section (or none). */
function splitSpec(spec: Spec, path: string) {
  const { rerank, ...base } = spec;
  if (rerank === undefined) return { base: spec, rerank: undefined };
  if (!rerank || typeof rerank !== 'object' || Array.isArray(rerank) || typeof (rerank as Spec).name !== 'string') {
    throw new ConfigError(`${path}.rerank: expected { name: <reranker>, … } (known rerankers: ${rerankers.names().join(', ')})`);
  }
  const { candidates, passage, ...rerankerSpec } = rerank as Spec;
  const wrapper = RerankWrapperSchema.safeParse({ candidates, passage });
  if (!wrapper.success) throw new ConfigError(formatZodIssues(wrapper.error, `${path}.rerank`));
  return { base: base as Spec, rerank: { ...wrapper.data, spec: rerankerSpec as Spec } };
}

/** Builds a retriever from a spec that may carry a `rerank` section. */
export async function createRetrieverWithRerank(spec: Spec, context: RetrieverContext, path: string): Promise<Retriever> {
  const { base, rerank } = splitSpec(spec, path);
  const firstStage = await retrievers.createPlain(base, context, path);
  if (!rerank) return firstStage;
  try {
    const reranker = await rerankers.create(rerank.spec, undefined, `${path}.rerank`);
    return rerankedRetriever(firstStage, reranker, rerank);
  } catch (error) {
    await firstStage.close();
    throw error;
  }
}

interface RerankedList {
  depth: number;
  firstStage: RetrievedChunk[];
  reranked: RetrievedChunk[];
}

/** How often reranking fell back to the first-stage order, of how many lists. */
export interface RerankCounts {
  lists: number;
  fallbacks: number;
}

/**
 * Retrieves `candidates` passages with the first stage, reranks them once per question and
 * keeps the result, so that every depth k of a run takes the top k of the same reranked list.
 * Each returned chunk carries its reranked rank and score and its first-stage ones
 * (`firstStage`). Ties keep the first-stage order. A reranker that cannot rank a list (an LLM's
 * unusable answer) keeps the first-stage order: counted, warned about on stderr, and marked
 * on every chunk of that list (`rerankFallback`).
 */
export function rerankedRetriever(
  base: Retriever,
  reranker: Reranker,
  options: { candidates: number; passage: 'title+text' | 'text' },
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Retriever & { counts(): RerankCounts } {
  const lists = new Map<string, Promise<RerankedList>>();
  const counts: RerankCounts = { lists: 0, fallbacks: 0 };
  const keyOf = (query: RetrievalQuery) => JSON.stringify([query.itemId ?? null, query.docId ?? null, query.text]);

  async function rerankQuery(query: RetrievalQuery, depth: number): Promise<RerankedList> {
    const firstStage = await base.retrieve(query, depth);
    const outcome = await reranker.rerank(query.text, firstStage.map((chunk) => passageText(chunk, options.passage)));
    if (outcome.scores.length !== firstStage.length) {
      throw new Error(`reranker ${reranker.name}: ${outcome.scores.length} scores for ${firstStage.length} candidates`);
    }
    counts.lists++;
    if (outcome.fallback) {
      counts.fallbacks++;
      warn(`rerank ${reranker.name}: ${query.itemId ?? query.text.slice(0, 30)}: ${outcome.fallback}; kept the first-stage order (${counts.fallbacks} of ${counts.lists} lists so far)`);
    }
    const order = firstStage.map((_, i) => i).sort((a, b) => outcome.scores[b]! - outcome.scores[a]! || a - b);
    const reranked = order.map((i, position) => ({
      ...firstStage[i]!,
      score: outcome.scores[i]!,
      rank: position + 1,
      firstStage: { rank: firstStage[i]!.rank, score: firstStage[i]!.score },
      ...(outcome.fallback ? { rerankFallback: outcome.fallback } : {}),
    }));
    return { depth, firstStage, reranked };
  }

  function listFor(query: RetrievalQuery, k: number): Promise<RerankedList> {
    const key = keyOf(query);
    const depth = Math.max(options.candidates, k);
    const known = lists.get(key);
    if (known) {
      return known.then((list) => {
        if (list.depth >= depth) return list;
        const deeper = rerankQuery(query, depth);
        lists.set(key, deeper);
        return deeper;
      });
    }
    const pending = rerankQuery(query, depth);
    lists.set(key, pending);
    pending.catch(() => lists.delete(key)); // a failed list may be tried again
    return pending;
  }

  return {
    name: base.name,
    depthDependent: base.depthDependent,
    async retrieve(query, k) {
      return (await listFor(query, k)).reranked.slice(0, k);
    },
    async firstStage(query) {
      return (await listFor(query, 1)).firstStage;
    },
    // Sentences are scored by the first stage's measure (a cross-encoder per sentence would cost a call each).
    ...(base.relevance ? { relevance: (query: string, texts: string[]) => base.relevance!(query, texts) } : {}),
    counts: () => ({ ...counts }),
    describe: () => ({ ...base.describe(), rerank: { ...reranker.describe(), candidates: options.candidates, passage: options.passage } }),
    async close() {
      if (counts.fallbacks) warn(`rerank ${reranker.name}: ${counts.fallbacks} of ${counts.lists} lists kept the first-stage order (unusable reranker answers)`);
      await Promise.all([base.close(), reranker.close()]);
    },
  };
}
