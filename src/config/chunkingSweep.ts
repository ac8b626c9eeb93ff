import { posix } from 'node:path';
import { z } from 'zod';
import { ChunkingOptionsSchema, type ChunkingOptions } from '../chunking/types.js';
import { corpusBuildConfigSchema } from '../corpus/config.js';
import { ConfigError, parseWith } from '../errors.js';
import type { ComponentSpec } from '../registry.js';

export type Raw = Record<string, unknown>;

export const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Separates a corpus's (index's, retriever's) own name from the settings of its grid point: `wiki·maxSize=256·overlap=64`. */
export const SWEEP_SEPARATOR = '·';

/** One point of a chunking grid: the swept settings' values, in the order the file wrote the settings. */
export type SweepPoint = Record<string, string | number | boolean>;

/** `·maxSize=256·overlap=64`: what a grid point adds to the names of the corpus, index and retriever it makes. */
export const sweepSuffix = (point: SweepPoint): string => Object.entries(point).map(([key, value]) => `${SWEEP_SEPARATOR}${key}=${value}`).join('');

/** A setting that may be swept: one value, or a list of values (one grid point each). */
export type Sweep<T> = T | T[];

/** `sweep(schema)`: one value of `one`, or a non-empty list of them; a default or `optional` stays on the whole. */
function sweep(one: z.ZodType, list: string): z.ZodType {
  const swept =
    one instanceof z.ZodDefault ? sweep(one.unwrap() as z.ZodType, list).default(one.def.defaultValue)
    : one instanceof z.ZodOptional ? sweep(one.unwrap() as z.ZodType, list).optional()
    : z.union([one, z.array(one).min(1).describe(list)]);
  return one.description ? swept.describe(one.description) : swept;
}

export type SweptChunking = { [K in keyof ChunkingOptions]: Sweep<Exclude<ChunkingOptions[K], undefined>> };

/**
 * `prepare.corpora[].chunking`: each setting one value or a chunking sweep's list. The checks across
 * settings (overlap < maxSize) hold at every point of the grid, each reported at the list entry of
 * its point (`overlap[1]`). Its shape is built from ChunkingOptionsSchema's, hence typed by hand.
 */
const sweptChunkingSchema = () =>
  z
    .strictObject(Object.fromEntries(Object.entries(ChunkingOptionsSchema.shape).map(([key, one]) => [key, sweep(one, 'a chunking sweep: one corpus (index, retriever) per value')])))
    .superRefine((chunking, context) => {
      const grid = chunkingGrid(chunking);
      const reported = new Set<string>();
      for (const point of grid.length > 0 ? grid : [{}]) {
        // The checks across settings only (refinements): each setting's values were checked in place.
        const across = ChunkingOptionsSchema.safeParse({ ...chunking, ...point }).error?.issues.filter((issue) => issue.code === 'custom') ?? [];
        for (const { path: written, message } of across) {
          const [key, ...rest] = written;
          const list = typeof key === 'string' && key in point ? chunking[key] : undefined;
          const path = Array.isArray(list) ? [key!, list.indexOf(point[key as string]), ...rest] : written;
          if (!reported.has(JSON.stringify(path))) context.addIssue({ code: 'custom', message, path });
          reported.add(JSON.stringify(path));
        }
      }
    }) as unknown as z.ZodType<SweptChunking>;

/** A corpus of `prepare.corpora`: a corpus build whose chunking settings may be swept. */
export const sweptCorpusSchema = () => corpusBuildConfigSchema().extend({ chunking: sweptChunkingSchema().default(ChunkingOptionsSchema.parse({})) });

/** The points of a chunking section's lists (cartesian product, the first list outermost, each value once); none when it has no list. */
export function chunkingGrid(chunking: Raw | undefined): SweepPoint[] {
  const swept = Object.entries(chunking ?? {}).filter((entry): entry is [string, (string | number | boolean)[]] => Array.isArray(entry[1]) && entry[1].length > 0 && entry[1].every(isScalar));
  if (swept.length === 0) return [];
  return swept.reduce<SweepPoint[]>((points, [key, values]) => points.flatMap((point) => [...new Set(values)].map((value) => ({ ...point, [key]: value }))), [{}]);
}

/** A path as the file wrote it, compared by its normal form (`./corpora/x/` is `corpora/x`). */
const samePath = (path: string) => posix.normalize(path.replace(/\\/g, '/')).replace(/\/+$/, '');

/** What expanding reads of a config: its corpora, the indexes built from them, the retrievers reading those. */
interface Sweepable {
  prepare?: { corpora?: { name: string; out?: string; chunking?: Raw }[]; indexes?: { out: string; corpus: string; embedder?: Raw }[] };
  retrieval?: { retrievers: (ComponentSpec & { label?: string })[] };
}
type CorpusOf<C extends Sweepable> = NonNullable<NonNullable<C['prepare']>['corpora']>[number];

/** A config with its sweeps expanded: each corpus one point of its grid, each chunking setting one value. */
export type Expanded<C extends Sweepable> = Omit<C, 'prepare'> & {
  prepare?: Omit<NonNullable<C['prepare']>, 'corpora'> & { corpora?: (Omit<CorpusOf<C>, 'chunking'> & { chunking: ChunkingOptions })[] };
};

interface SweptOutput {
  /** The corpus entry the grid point came from (its `name`), for messages. */
  corpus: string;
  points: { point: SweepPoint; out: string }[];
}

/**
 * A checked config's chunking sweeps read: in `prepare.corpora[].chunking`, a list of values for a
 * setting (`maxSize: [128, 256, 512]`, `overlap: [0, 64]`) stands for one corpus per point of the
 * grid of its lists (`chunkingGrid`), each named after its settings (`wiki·maxSize=128·overlap=0`,
 * its folder `<out>·maxSize=128·overlap=0`). Every index of that corpus (`prepare.indexes[].corpus`)
 * becomes one index per point, and every retriever reading such an index (`indexesRead`) one retriever
 * per point, labelled `<label>·maxSize=128·overlap=0`. The indexes of one sweep share one embedding
 * cache (`<index out>.embeddings.sqlite`, keyed by chunk text), so a chunk text two chunkings share is
 * embedded once. A config without lists comes back as it is; the result has none.
 */
export function expandChunkingSweeps<C extends Sweepable>(config: C): Expanded<C> {
  const corpora = config.prepare?.corpora ?? [];
  const grids = corpora.map((corpus) => chunkingGrid(corpus.chunking));
  // Without a list every chunking is one value per setting already.
  if (grids.every((grid) => grid.length === 0)) return config as unknown as Expanded<C>;
  const sweptCorpora = new Map<string, SweptOutput>();
  const expandedCorpora = corpora.flatMap((corpus, i) => {
    const out = corpus.out ?? `corpora/${corpus.name}`;
    const points = grids[i]!.map((point) => ({ point, out: `${out}${sweepSuffix(point)}` }));
    if (points.length > 0) sweptCorpora.set(samePath(out), { corpus: corpus.name, points });
    return points.length === 0 ? [corpus] : points.map(({ point, out }) => ({ ...corpus, name: `${corpus.name}${sweepSuffix(point)}`, out, chunking: { ...corpus.chunking, ...point } }));
  });

  const sweptIndexes = new Map<string, SweptOutput>();
  const indexes = config.prepare?.indexes?.flatMap((index) => {
    const sweep = sweptCorpora.get(samePath(index.corpus));
    if (!sweep) return [index];
    const embedder = index.embedder && index.embedder.cacheFile === undefined ? { ...index.embedder, cacheFile: `${index.out}.embeddings.sqlite` } : index.embedder;
    const points = sweep.points.map(({ point, out }) => ({ point, out: `${index.out}${sweepSuffix(point)}`, corpus: out }));
    sweptIndexes.set(samePath(index.out), { corpus: sweep.corpus, points });
    return points.map(({ out, corpus }) => ({ ...index, out, corpus, ...(embedder ? { embedder } : {}) }));
  });

  const retrieval = config.retrieval && { ...config.retrieval, retrievers: config.retrieval.retrievers.flatMap((retriever, i) => expandRetriever(retriever, sweptIndexes, i)) };
  const prepare = { ...config.prepare, corpora: expandedCorpora, ...(indexes ? { indexes } : {}) };
  // Each list was replaced by its value at the point.
  return { ...config, prepare, ...(retrieval ? { retrieval } : {}) } as unknown as Expanded<C>;
}

/** The indexes a retriever reads: its `index` (every registered retriever names its index so) and those of the retrievers it fuses (`retrievers`). */
const indexesRead = (spec: Raw): string[] => [
  ...(typeof spec.index === 'string' ? [samePath(spec.index)] : []),
  ...(Array.isArray(spec.retrievers) ? spec.retrievers.filter(isObject).flatMap(indexesRead) : []),
];

/** The spec reading the index `to` gives for each index it reads. */
const reading = <S extends Raw>(spec: S, to: (index: string) => string): S => ({
  ...spec,
  ...(typeof spec.index === 'string' ? { index: to(spec.index) } : {}),
  ...(Array.isArray(spec.retrievers) ? { retrievers: spec.retrievers.map((child: unknown) => (isObject(child) ? reading(child, to) : child)) } : {}),
});

/** A retriever reading an index of a swept corpus: one retriever per grid point, labelled after its settings. */
function expandRetriever<R extends ComponentSpec & { label?: string }>(retriever: R, sweptIndexes: Map<string, SweptOutput>, i: number): R[] {
  const sweeps = [...new Set(indexesRead(retriever))].flatMap((index) => sweptIndexes.get(index) ?? []);
  if (sweeps.length === 0) return [retriever];
  const corpora = new Set(sweeps.map((sweep) => sweep.corpus));
  if (corpora.size > 1) throw new ConfigError(`retrieval.retrievers[${i}]: reads indexes of two swept corpora (${[...corpora].join(', ')}); a retriever may follow one chunking sweep`);
  return sweeps[0]!.points.map(({ point }, at) => ({
    ...reading(retriever, (index) => sweptIndexes.get(samePath(index))?.points[at]!.out ?? index),
    label: `${retriever.label ?? retriever.name}${sweepSuffix(point)}`,
  }));
}

/** An experiment file's `prepare.corpora`, checked, each sweep expanded into its points (`hisrag corpus build <experiment> --name wiki·maxSize=256`). */
export function sweptCorpora(corpora: unknown, file: string) {
  const checked = parseWith(z.array(sweptCorpusSchema()), corpora, (problems) => new ConfigError(`${file}: invalid corpus config:\n${problems}`), 'prepare.corpora');
  return expandChunkingSweeps({ prepare: { corpora: checked } }).prepare!.corpora!;
}
