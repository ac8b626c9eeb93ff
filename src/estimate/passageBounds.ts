import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ComponentSpec } from '../registry.js';
import { ChunkStore } from '../index/chunkStore.js';
import { CHUNK_STORE_FILE } from '../runFiles/indexManifest.js';
import { formatContextHeader } from '../prompting/contextBlock.js';
import { chunkPages } from '../prompting/templateStrategy.js';
import { estimateTokens } from '../text/tokenCounter.js';

/**
 * The most one retrieved passage can take in a prompt: the index's longest chunk as a context-block
 * entry (header with title and pages, text, separator), by the token estimate the run counts with.
 */
export interface LongestPassage {
  /** As methods place passages (`【资料1】《title》（第N页）`). */
  entry: number;
  /** As the agent's search results show them (title with the chunk id, no pages). */
  entryWithId: number;
}

/** Either the longest passage of a retriever's indexes, or why none can be stated. */
export type PassageLimit = { longest: LongestPassage } | { unknown: string };

/** Every `index:` a retriever spec names (a hybrid's or a reranked retriever's inner ones too). */
function indexPaths(spec: unknown): string[] {
  if (!spec || typeof spec !== 'object') return [];
  if (Array.isArray(spec)) return spec.flatMap(indexPaths);
  return Object.entries(spec as Record<string, unknown>).flatMap(([key, value]) => (key === 'index' && typeof value === 'string' ? [value] : indexPaths(value)));
}

/** One pass over a chunk store: its longest entry in both forms. */
function longestIn(storePath: string): LongestPassage {
  const store = ChunkStore.open(storePath, { readonly: true });
  try {
    let entry = 0;
    let entryWithId = 0;
    for (const chunk of store.chunks()) {
      const text = chunk.text.trim();
      const pages = chunkPages({ ...chunk, score: 0, rank: 1 });
      entry = Math.max(entry, estimateTokens(`${formatContextHeader(1, { title: chunk.title, ...(pages ? { pages } : {}) })}\n${text}\n\n`));
      entryWithId = Math.max(entryWithId, estimateTokens(`${formatContextHeader(1, { title: `${chunk.title}（编号 ${chunk.id}）` })}\n${text}\n\n`));
    }
    return { entry, entryWithId };
  } finally {
    store.close();
  }
}

/** The longest passage a retriever can return (each index read once); unknown without a chunk store. */
export function passageLimits(): (label: string, spec: ComponentSpec) => PassageLimit {
  const byStore = new Map<string, LongestPassage>();
  const byLabel = new Map<string, PassageLimit>();
  return (label, spec) => {
    const known = byLabel.get(label);
    if (known) return known;
    const paths = indexPaths(spec);
    let limit: PassageLimit;
    const missing = paths.find((path) => !existsSync(join(path, CHUNK_STORE_FILE)));
    if (paths.length === 0) limit = { unknown: `retriever ${label} names no index whose chunks bound its passages` };
    else if (missing) limit = { unknown: `retriever ${label}: ${missing} has no ${CHUNK_STORE_FILE} whose chunks bound its passages` };
    else {
      const each = paths.map((path) => {
        let longest = byStore.get(path);
        if (!longest) byStore.set(path, (longest = longestIn(join(path, CHUNK_STORE_FILE))));
        return longest;
      });
      limit = { longest: { entry: Math.max(...each.map((l) => l.entry)), entryWithId: Math.max(...each.map((l) => l.entryWithId)) } };
    }
    byLabel.set(label, limit);
    return limit;
  };
}
