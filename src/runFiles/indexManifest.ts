import { join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { BuildInputsSchema } from './buildInputs.js';
import { readJsonFile } from '../io/jsonText.js';

/** 2: chunk texts stored as UTF-16LE (format 1 indexes, TEXT columns, still open). */
export const INDEX_FORMAT_VERSION = 2;
export const INDEX_MANIFEST_FILE = 'manifest.json';
export const CHUNK_STORE_FILE = 'chunks.sqlite';
export const HNSW_FILE = 'hnsw.bin';
export const USEARCH_FILE = 'usearch.bin';

/** Everything that makes two embedders' vectors comparable; stored in index manifests. */
export const EmbedderIdentitySchema = z.object({
  model: z.string().describe('Model id (`Xenova/bge-large-zh-v1.5`), local directory, or remote `<baseURL>#<model>`'),
  dimension: z.number().int().positive(),
  pooling: z
    .enum(['cls', 'mean', 'last', 'model', 'server'])
    .describe('`last`: the last token (decoder embedders); `model`: the model pools itself (CLIP-family towers); `server`: a remote model whose pooling was not stated'),
  normalize: z.boolean(),
  queryPrefix: z.string(),
  /** Prepended to every document embedded (e5's `passage: `); absent in indexes built before it existed, which had none. */
  documentPrefix: z.string().default(''),
});
export type EmbedderIdentity = z.infer<typeof EmbedderIdentitySchema>;

/**
 * Settings of a `lancedb` index (recorded in its manifest). The table holds one row per chunk —
 * label, id, docId, parentId, title, text, meta (JSON) and the vector — so chunks and vectors live in
 * one LanceDB table on disk (or in an object store), never all in memory.
 */
export const LanceDbParamsSchema = z.object({
  uri: z.string().min(1).describe('LanceDB URI of the database: a local folder, relative to the index directory when relative (default `lancedb`, inside it), or an object-store URI (`s3://bucket/path`, `gs://…`, `az://…`)'),
  table: z.string().regex(/^[\w.-]+$/),
  distance: z.enum(['dot', 'cosine']).describe('Distance the vectors are compared with: dot on L2-normalised vectors, cosine otherwise'),
  vectorIndex: z.enum(['ivf-pq', 'none']).describe('Vector index built after the rows are stored: `ivf-pq` (IVF partitions, product-quantised codes, re-ranked with the stored vectors) for large tables; `none` = exact search over every row'),
  numPartitions: z.number().int().positive().optional().describe('With `ivf-pq`: partitions (default √rows) and PQ sub-vectors (default dimension / 16, else / 8)'),
  numSubVectors: z.number().int().positive().optional(),
  nprobes: z.number().int().positive().describe('Default query settings: partitions probed and the refine factor (k × factor PQ candidates re-scored exactly)'),
  refineFactor: z.number().int().positive(),
});
export type LanceDbParams = z.infer<typeof LanceDbParamsSchema>;

export const IndexKindSchema = z.enum(['hnsw', 'exact', 'bm25', 'lancedb']);
export type IndexKind = z.infer<typeof IndexKindSchema>;

/** `{ name, ...params }` of an embedder in the embedder registry, enough to re-create it. */
export const ComponentSpecSchema = z.object({ name: z.string().min(1) }).catchall(z.unknown());
export type ComponentSpec = z.infer<typeof ComponentSpecSchema>;

/** How `efSearch` was chosen: recall@k against exact search on a held-out sample of the index's own vectors. */
export const EfTuningSchema = z.object({
  /** The efSearch chosen (also `hnsw.efSearch`). */
  efSearch: z.number().int().positive(),
  k: z.number().int().positive(),
  /** Recall@k the smallest efSearch had to reach. */
  target: z.number().min(0).max(1),
  /** Recall@k measured at the chosen efSearch. */
  recall: z.number().min(0).max(1),
  /** False when even the largest efSearch tried stayed below the target, or efSearch was set by hand. */
  reached: z.boolean(),
  /** True when efSearch was searched for; false when it was given and only measured. */
  tuned: z.boolean(),
  sample: z.number().int().nonnegative(),
  /** held-out: the sample was not in the graph while measuring (build time); self-excluded: it was, each query's own label dropped. */
  protocol: z.enum(['held-out', 'self-excluded']).optional(),
  /** efSearch values tried and their recall, smallest first. */
  curve: z.array(z.object({ efSearch: z.number().int().positive(), recall: z.number() })),
  measuredAt: z.string(),
});
export type EfTuning = z.infer<typeof EfTuningSchema>;

export const HnswParamsSchema = z.object({
  /** 'ip' on L2-normalised vectors (score = dot product), 'cosine' when the embedder does not normalise. */
  space: z.enum(['ip', 'cosine']),
  M: z.number().int().min(2),
  efConstruction: z.number().int().min(1),
  /** Default search breadth; a query always uses at least k. Tuned at build time (see `tuning`). */
  efSearch: z.number().int().min(1),
  randomSeed: z.number().int(),
  /** The HNSW implementation: hnswlib-node (fp32, `hnsw.bin`) or usearch (f16/i8, multi-threaded builds, memory-mapped, `usearch.bin`). */
  library: z.enum(['hnswlib', 'usearch']).default('hnswlib'),
  /** usearch only: precision of the vectors inside the graph. */
  quantization: z.enum(['f32', 'f16', 'i8']).optional(),
  tuning: EfTuningSchema.optional(),
});
export type HnswParams = z.infer<typeof HnswParamsSchema>;

export const Bm25ParamsSchema = z.object({
  k1: z.number().nonnegative(),
  b: z.number().min(0).max(1),
  /** Add overlapping CJK character bigrams as extra terms (helps classical text jieba segments poorly). */
  bigrams: z.boolean(),
  /** Convert traditional → simplified before tokenising (documents and queries alike). */
  simplify: z.boolean(),
  /** jieba's HMM for unknown words. */
  hmm: z.boolean(),
});
export type Bm25Params = z.infer<typeof Bm25ParamsSchema>;

/** `<index-dir>/manifest.json`: what was indexed, with what, how; `complete` only once everything is on disk. */
export const IndexManifestSchema = z.object({
  formatVersion: z.union([z.literal(1), z.literal(INDEX_FORMAT_VERSION)]),
  kind: IndexKindSchema,
  complete: z.boolean(),
  corpus: z.object({ dir: z.string(), name: z.string(), contentHash: z.string() }),
  embedder: z
    .object({
      identity: EmbedderIdentitySchema,
      /**
       * What identifies the model's weights (`sha256:…` of a local model's files, `openai:<model>:<dim>` for a
       * served one): a query embedder with another fingerprint is refused. Absent in indexes built before it existed.
       */
      fingerprint: z.string().optional(),
      /** Registry spec to re-create the embedder at query time; absent when built with an injected embedder. */
      spec: ComponentSpecSchema.optional(),
      /** Where each of pooling, normalisation and the prefixes came from (config, preset, model files, default); absent for embedders that do not say. */
      conventions: z.record(z.string(), z.string()).optional(),
      /** Similarity of the stored vectors: dot product on unit vectors, or cosine. */
      space: z.enum(['ip', 'cosine']),
      /** What was embedded per chunk: `title\ntext` or the text alone. */
      passage: z.enum(['title+text', 'text']),
      /** `image`: each chunk's page image was embedded (queries are text, through the text tower); absent: text. */
      documents: z.enum(['text', 'image']).optional(),
      /** The page images' folder of an image index (the corpus's `imageDir`, absolute). */
      imageDir: z.string().optional(),
    })
    .optional(),
  hnsw: HnswParamsSchema.optional(),
  bm25: Bm25ParamsSchema.optional(),
  /** A lancedb index: where its table is and how it is searched (src/index/lancedb/). */
  lancedb: LanceDbParamsSchema.optional(),
  /** Precision of the vectors in chunks.sqlite (absent: f32, indexes built before it was a choice). */
  vectorEncoding: z.enum(['f32', 'f16', 'i8']).optional(),
  counts: z.object({
    chunks: z.number().int().nonnegative(),
    documents: z.number().int().nonnegative(),
    vectors: z.number().int().nonnegative(),
    terms: z.number().int().nonnegative(),
    /** Chunks added after the build (`appendChunks`), not from the corpus. */
    appended: z.number().int().nonnegative().optional(),
  }),
  timings: z.record(z.string(), z.number()),
  toolVersion: z.string(),
  createdAt: z.string(),
  completedAt: z.string().optional(),
  /** What the index was built from besides its corpus (build settings, model files; src/index/freshness.ts); absent when built outside `prepare` or before it was recorded. */
  inputs: BuildInputsSchema.optional(),
});
export type IndexManifest = z.infer<typeof IndexManifestSchema>;

export function indexManifestPath(dir: string): string {
  return join(dir, INDEX_MANIFEST_FILE);
}

/** Reads and validates an index manifest; `undefined` when the directory holds none (a damaged one is a DataFileError). */
export function readIndexManifest(dir: string): IndexManifest | undefined {
  return readJsonFile(indexManifestPath(dir), IndexManifestSchema);
}

/** Like readIndexManifest but the index must exist and be complete. */
export async function requireCompleteIndexManifest(dir: string): Promise<IndexManifest> {
  const manifest = readIndexManifest(dir);
  if (!manifest) throw new InputError(`${dir}: not an index directory (no ${INDEX_MANIFEST_FILE})`);
  if (!manifest.complete) {
    throw new InputError(`${dir}: index build is incomplete; finish it with \`hisrag index build … --resume\``);
  }
  return manifest;
}

export async function writeIndexManifest(dir: string, manifest: IndexManifest): Promise<void> {
  await atomicWriteJson(indexManifestPath(dir), manifest);
}

/** What a dense index's embedder does, and why: `pooling "mean" (model files (1_Pooling/config.json)), …`; undefined for bm25. */
export function describeIndexEmbedder(manifest: IndexManifest): string | undefined {
  const recorded = manifest.embedder;
  if (!recorded) return undefined;
  const { identity, conventions = {} } = recorded;
  const keys = ['pooling', 'normalize', 'queryPrefix', 'documentPrefix'] as const;
  return keys.map((key) => `${key} ${JSON.stringify(identity[key])}${conventions[key] ? ` (${conventions[key]})` : ''}`).join(', ');
}
