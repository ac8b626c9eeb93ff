import type { RegistryEntry } from '../../registry.js';
import type { RetrieverContext } from '../retrieverContext.js';
import type { OracleNoiseParams } from './oracleNoiseSchema.js';
import { documentLabels } from '../documentScope.js';
import { goldChunks } from '../goldChunks.js';
import { drawDistinct, seededRandom, shuffled, type SeededRandom } from '../seededRandom.js';
import { reRank } from '../toRetrievedChunks.js';
import type { RetrievedChunk, Retriever } from '../types.js';

export type GoldPosition = 'first' | 'last' | 'middle' | 'random';

/**
 * Places the gold chunks among the noise: `first`/`last` put the gold block before/after the noise,
 * `middle` puts it after ⌊noise/2⌋ noise chunks, `random` puts each gold chunk at a random position
 * (gold keeps its order, noise keeps its order).
 */
export function placeGold<T>(gold: T[], noise: T[], position: GoldPosition, random: SeededRandom): T[] {
  switch (position) {
    case 'first':
      return [...gold, ...noise];
    case 'last':
      return [...noise, ...gold];
    case 'middle': {
      const half = Math.floor(noise.length / 2);
      return [...noise.slice(0, half), ...gold, ...noise.slice(half)];
    }
    case 'random': {
      const total = gold.length + noise.length;
      const goldSlots = new Set(shuffled(random, Array.from({ length: total }, (_, i) => i)).slice(0, gold.length));
      let g = 0;
      let n = 0;
      return Array.from({ length: total }, (_, i) => (goldSlots.has(i) ? gold[g++]! : noise[n++]!));
    }
  }
}

/**
 * Control for noise studies: the gold evidence padded to k with distractors — `random` chunks (uniform,
 * seeded per item) or `hard` negatives (the best non-gold chunks of the `base` retriever; topped up with
 * random ones if it returns too few). Gold chunks score 1, noise 0. Scoped to the query's document when
 * `docId` is set (random noise from the same document; the base retriever scopes itself).
 */
export const oracleNoiseRetriever: Pick<RegistryEntry<OracleNoiseParams, Retriever, RetrieverContext>, 'create'> = {
  async create(params, context) {
    const index = await context.openIndex(params.index);
    let base: Retriever | undefined;
    try {
      if (params.base) base = await context.createRetriever(params.base, 'retriever.base');
    } catch (error) {
      await index.close();
      throw error;
    }
    const seed = params.seed ?? context.seed;
    const store = index.store;
    return {
      name: 'oracle+noise',
      // Padding to k makes the list at k no prefix of a deeper one.
      depthDependent: true,
      async retrieve(query, k) {
        const key = query.itemId ?? query.text;
        const gold = goldChunks(store, query, params.index)
          .slice(0, k)
          .map(({ label: _label, ...chunk }) => ({ ...chunk, score: 1 }));
        const goldIds = new Set(gold.map((chunk) => chunk.id));
        const wanted = k - gold.length;
        const noise: Omit<RetrievedChunk, 'rank'>[] = [];
        if (wanted > 0 && params.noise === 'hard' && base) {
          for (const hit of await base.retrieve(query, k + gold.length)) {
            if (noise.length >= wanted) break;
            if (goldIds.has(hit.id)) continue;
            const { rank: _rank, ...chunk } = hit;
            noise.push({ ...chunk, score: 0 });
          }
        }
        if (noise.length < wanted) {
          const taken = new Set([...goldIds, ...noise.map((chunk) => chunk.id)]);
          const random = seededRandom(seed, `noise\u0000${key}`);
          const scope = query.docId ? documentLabels(store, query.docId, params.index) : undefined;
          const poolSize = scope ? scope.length : store.count();
          const draw = drawDistinct(random, poolSize, Math.min(poolSize, wanted + taken.size));
          for (const position of draw) {
            if (noise.length >= wanted) break;
            const chunk = store.byLabel(scope ? scope[position]! : position)!;
            if (taken.has(chunk.id)) continue;
            const { label: _label, ...rest } = chunk;
            noise.push({ ...rest, score: 0 });
          }
        }
        return reRank(placeGold(gold, noise, params.goldPosition, seededRandom(seed, `place\u0000${key}`)));
      },
      describe: () => ({
        name: 'oracle+noise',
        index: params.index,
        noise: params.noise,
        goldPosition: params.goldPosition,
        seed,
        ...(base && { base: base.describe() }),
        corpusHash: index.manifest.corpus.contentHash,
      }),
      async close() {
        await base?.close();
        await index.close();
      },
    };
  },
};
