import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { EmbeddingCache } from '../embedding/embeddingCache.js';
import { createEmbedder } from '../embedding/registry.js';
import type { TextEmbedder } from '../embedding/types.js';
import type { ComponentSpec } from '../runFiles/indexManifest.js';
import type { OpenedIndex, OpenIndexOptions } from '../index/openIndex.js';

/** Where a dry run keeps its questions' query vectors: the project's cache folder, beside `.cache/page-images.sqlite`. */
export const QUERY_VECTOR_CACHE = '.cache/query-vectors.sqlite';

export interface QueryVectorCacheOptions {
  file: string;
  /** Look vectors up, store none (`--frozen`: a dry run adds nothing to the workspace). */
  readOnly?: boolean;
}

/**
 * The index with its `embedQueries` answered from `options.file` first: re-planning a config whose
 * questions were embedded before loads no model. Entries are keyed by the index's recorded embedder
 * (identity and model fingerprint) and the query embedder's `vectorKey` (its settings and its model
 * files' content hash, known without loading it), then by the query prefix + text. A vector is stored
 * only once the index's own check of that embedder passed (it runs when the index embeds), so a hit
 * stands for the check; the stored vector is the one the model gave, so the numbers do not change.
 * Embedders without a `vectorKey`, and a cache that cannot be opened, leave the index as it is.
 */
export function withQueryVectorCache(index: OpenedIndex, given: OpenIndexOptions['embedder'], options: QueryVectorCacheOptions): OpenedIndex {
  let opened: Promise<{ cache: EmbeddingCache; key: string; queryPrefix: string } | undefined> | undefined;
  const open = () => (opened ??= openCache(index, given, options));
  const embedQueries = async (texts: string[]): Promise<number[][]> => {
    const entry = texts.length > 0 ? await open() : undefined;
    if (!entry) return index.embedQueries(texts);
    const contents = texts.map((text) => createHash('sha256').update(entry.queryPrefix + text, 'utf8').digest('hex'));
    const found = entry.cache.getManyByContent(entry.key, contents);
    if (found.every((vector) => vector !== undefined)) return found as number[][];
    // One text missing: all are embedded together, as without the cache (a batch's other texts and their padding are the model's input too).
    const vectors = await index.embedQueries(texts);
    if (!options.readOnly) entry.cache.putManyByContent(entry.key, contents.flatMap((content, i) => (found[i] ? [] : [{ content, vector: vectors[i]! }])));
    return vectors;
  };
  return {
    ...index,
    embedQueries,
    embedQuery: async (text) => (await embedQueries([text]))[0]!,
    async close() {
      (await opened)?.cache.close();
      await index.close();
    },
  };
}

async function openCache(index: OpenedIndex, given: OpenIndexOptions['embedder'], options: QueryVectorCacheOptions) {
  const recorded = index.manifest.embedder;
  if (!recorded || (options.readOnly && !existsSync(options.file))) return undefined;
  const embedder = given ?? recorded.spec;
  // An instance answers for itself; a spec is created (not loaded) to ask it, then released.
  const created = embedder && typeof (embedder as TextEmbedder).embedQuery !== 'function' ? await createEmbedder(embedder as ComponentSpec) : undefined;
  // A key it cannot compute (model files missing): the index embeds, and reports what is wrong.
  const vectorKey = await (created ?? (embedder as TextEmbedder | undefined))?.vectorKey?.().catch(() => undefined);
  await created?.dispose();
  if (!vectorKey) return undefined;
  let cache: EmbeddingCache;
  try {
    cache = new EmbeddingCache(options.file);
  } catch {
    return undefined; // only a shortcut: a file it cannot use (read-only folder, another format) means embedding as before
  }
  const identity = { recorded: { identity: recorded.identity, fingerprint: recorded.fingerprint ?? null }, vectorKey };
  const key = createHash('sha256').update(JSON.stringify(identity)).digest('hex');
  if (!options.readOnly) cache.describe(key, identity);
  return { cache, key, queryPrefix: recorded.identity.queryPrefix };
}
