import { z } from 'zod';

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

/** What `buildIndex` takes for a lancedb index; `vectorIndex: auto` picks IVF-PQ from LANCEDB_IVF_PQ_MIN_ROWS rows. */
export interface LanceDbBuildOptions extends Partial<Omit<LanceDbParams, 'vectorIndex' | 'distance'>> {
  vectorIndex?: LanceDbParams['vectorIndex'] | 'auto';
}
