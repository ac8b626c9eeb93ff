import { posix } from 'node:path';
import { ConfigError } from '../errors.js';

export type Raw = Record<string, unknown>;

export const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Separates a corpus's (index's, retriever's) own name from the settings of its grid point: `wiki·maxSize=256·overlap=64`. */
export const SWEEP_SEPARATOR = '·';

/** One point of a chunking grid: the swept settings' values, in the order the file wrote the settings. */
export type SweepPoint = Record<string, string | number | boolean>;

/** `·maxSize=256·overlap=64`: what a grid point adds to the names of the corpus, index and retriever it makes. */
export const sweepSuffix = (point: SweepPoint): string => Object.entries(point).map(([key, value]) => `${SWEEP_SEPARATOR}${key}=${value}`).join('');

/** The points of a chunking section's lists (cartesian product, the first list outermost); none when it has no list. */
export function chunkingGrid(chunking: unknown): SweepPoint[] {
  if (!isObject(chunking)) return [];
  const swept = Object.entries(chunking).filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]) && entry[1].length > 0 && entry[1].every(isScalar));
  if (swept.length === 0) return [];
  let points: SweepPoint[] = [{}];
  for (const [key, values] of swept) {
    const distinct = [...new Set(values as (string | number | boolean)[])];
    points = points.flatMap((point) => distinct.map((value) => ({ ...point, [key]: value })));
  }
  return points;
}

/** A path as the file wrote it, compared by its normal form (`./corpora/x/` is `corpora/x`). */
const samePath = (path: string) => posix.normalize(path.replace(/\\/g, '/')).replace(/\/+$/, '');

/** Replaces every string (at any depth of a spec) naming one of `paths` by what `to` maps it to; says which were found. */
function replacePaths(value: unknown, to: (normal: string) => string | undefined, found: Set<string>): unknown {
  if (typeof value === 'string') {
    const target = to(samePath(value));
    if (target === undefined) return value;
    found.add(samePath(value));
    return target;
  }
  if (Array.isArray(value)) return value.map((v) => replacePaths(v, to, found));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, replacePaths(v, to, found)]));
  return value;
}

interface SweptOutput {
  /** The corpus entry the grid point came from (its `name`), for messages. */
  corpus: string;
  points: { point: SweepPoint; out: string }[];
}

/**
 * The one step that reads a chunking sweep: in `prepare.corpora[].chunking`, a list of values for a
 * setting (`maxSize: [128, 256, 512]`, `overlap: [0, 64]`) stands for one corpus per point of the
 * grid of its lists (cartesian product), each named after its settings (`wiki·maxSize=128·overlap=0`,
 * its folder `<out>·maxSize=128·overlap=0`). Every index of that corpus (`prepare.indexes[].corpus`)
 * becomes one index per point, and every retriever reading such an index (any string of its spec naming
 * it) one retriever per point, labelled `<label>·maxSize=128·overlap=0`. The indexes of one sweep share
 * one embedding cache (`<index out>.embeddings.sqlite`, keyed by chunk text), so a chunk text two
 * chunkings share is embedded once. A config without lists comes back as it is; the result has none.
 */
export function expandChunkingSweeps(value: unknown): unknown {
  if (!isObject(value) || !isObject(value.prepare) || !Array.isArray(value.prepare.corpora)) return value;
  const sweptCorpora = new Map<string, SweptOutput>();
  const corpora = value.prepare.corpora.flatMap((corpus: unknown) => {
    const points = isObject(corpus) ? chunkingGrid(corpus.chunking) : [];
    if (!isObject(corpus) || points.length === 0) return [corpus];
    const out = typeof corpus.out === 'string' ? corpus.out : `corpora/${String(corpus.name)}`;
    const expanded = points.map((point) => ({ ...corpus, name: `${String(corpus.name)}${sweepSuffix(point)}`, out: `${out}${sweepSuffix(point)}`, chunking: { ...(corpus.chunking as Raw), ...point } }));
    sweptCorpora.set(samePath(out), { corpus: String(corpus.name), points: points.map((point, i) => ({ point, out: expanded[i]!.out })) });
    return expanded;
  });
  if (sweptCorpora.size === 0) return value;

  const sweptIndexes = new Map<string, SweptOutput>();
  const indexes = Array.isArray(value.prepare.indexes)
    ? value.prepare.indexes.flatMap((index: unknown) => {
        const sweep = isObject(index) && typeof index.corpus === 'string' ? sweptCorpora.get(samePath(index.corpus)) : undefined;
        if (!isObject(index) || !sweep || typeof index.out !== 'string') return [index];
        const shared = isObject(index.embedder) && index.embedder.cacheFile === undefined ? { ...index.embedder, cacheFile: `${index.out}.embeddings.sqlite` } : index.embedder;
        const expanded = sweep.points.map(({ point, out }) => ({ ...index, out: `${index.out}${sweepSuffix(point)}`, corpus: out, ...(shared ? { embedder: shared } : {}) }));
        sweptIndexes.set(samePath(index.out), { corpus: sweep.corpus, points: sweep.points.map(({ point }, i) => ({ point, out: expanded[i]!.out })) });
        return expanded;
      })
    : value.prepare.indexes;

  const out: Raw = { ...value, prepare: { ...value.prepare, corpora, ...(indexes !== undefined ? { indexes } : {}) } };
  const retrieval = value.retrieval;
  if (isObject(retrieval) && Array.isArray(retrieval.retrievers)) {
    out.retrieval = { ...retrieval, retrievers: retrieval.retrievers.flatMap((retriever: unknown, i: number) => expandRetriever(retriever, sweptIndexes, `retrieval.retrievers[${i}]`)) };
  }
  return out;
}

/** A retriever reading an index of a swept corpus: one retriever per grid point, labelled after its settings. */
function expandRetriever(retriever: unknown, sweptIndexes: Map<string, SweptOutput>, path: string): unknown[] {
  if (!isObject(retriever)) return [retriever];
  const found = new Set<string>();
  replacePaths(retriever, (normal) => (sweptIndexes.has(normal) ? normal : undefined), found);
  if (found.size === 0) return [retriever];
  const sweeps = [...found].map((index) => sweptIndexes.get(index)!);
  const corpora = new Set(sweeps.map((sweep) => sweep.corpus));
  if (corpora.size > 1) throw new ConfigError(`${path}: reads indexes of two swept corpora (${[...corpora].join(', ')}); a retriever may follow one chunking sweep`);
  const label = typeof retriever.label === 'string' ? retriever.label : String(retriever.name);
  return sweeps[0]!.points.map(({ point }, i) => {
    const to = (normal: string) => (sweptIndexes.has(normal) ? sweptIndexes.get(normal)!.points[i]!.out : undefined);
    return { ...(replacePaths(retriever, to, new Set()) as Raw), label: `${label}${sweepSuffix(point)}` };
  });
}

/** For each expanded entry, in order, the written entry it came from. */
function origins(written: unknown[], expandedCount: (entry: unknown, i: number) => number): number[] {
  // [0, 0, 0, 1, 2, 2]: written entry 0 became three, 1 stayed one, 2 became two.
  return written.flatMap((entry, i) => Array<number>(Math.max(1, expandedCount(entry, i))).fill(i));
}

/**
 * Where a problem the schema found in the expanded config is in the file as written: an expanded
 * corpus's `prepare.corpora[4].chunking.maxSize` is `prepare.corpora[0].chunking.maxSize[2]` (the list
 * entry of its grid point), an expanded index or retriever is the entry it came from.
 */
export function sweptWrittenPath(written: unknown, path: readonly PropertyKey[]): PropertyKey[] {
  if (!isObject(written) || !isObject(written.prepare) || !Array.isArray(written.prepare.corpora)) return [...path];
  const corpora: unknown[] = written.prepare.corpora;
  const grids = corpora.map((corpus) => (isObject(corpus) ? chunkingGrid(corpus.chunking) : []));
  if (grids.every((grid) => grid.length === 0)) return [...path];
  const [first, second, at, ...rest] = path;
  if (first === 'prepare' && second === 'corpora' && typeof at === 'number') {
    const from = origins(corpora, (_, i) => grids[i]!.length);
    const i = from[at];
    if (i === undefined) return [...path];
    const point = grids[i]![at - from.indexOf(i)];
    const [section, key] = rest;
    const corpus = corpora[i];
    const chunking = isObject(corpus) ? corpus.chunking : undefined;
    const list = isObject(chunking) ? chunking[key as string] : undefined;
    if (section === 'chunking' && point && typeof key === 'string' && key in point && Array.isArray(list)) {
      return ['prepare', 'corpora', i, 'chunking', key, list.indexOf(point[key]), ...rest.slice(2)];
    }
    return ['prepare', 'corpora', i, ...rest];
  }
  const section = first === 'prepare' && second === 'indexes' ? 'prepare' : first === 'retrieval' && second === 'retrievers' ? 'retrieval' : undefined;
  const entries = section && isObject(written[section]) ? (written[section] as Raw)[second as string] : undefined;
  if (!section || !Array.isArray(entries) || typeof at !== 'number') return [...path];
  const list = second as string;
  // Each written entry became a run of consecutive entries: expand them one at a time to find which.
  const alone = (entry: unknown) => ((expandChunkingSweeps({ ...written, [section]: { ...(written[section] as Raw), [list]: [entry] } }) as Record<string, Record<string, unknown[]>>)[section]![list]!.length);
  const i = origins(entries, alone)[at];
  return i === undefined ? [...path] : [section, list, i, ...rest];
}
