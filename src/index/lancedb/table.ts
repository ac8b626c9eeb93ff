import { isAbsolute, resolve } from 'node:path';
import { connect, type Connection, type Table } from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from 'apache-arrow';
import type { Chunk } from '../../runFiles/corpusFiles.js';
import type { LanceDbParams } from '../../runFiles/indexManifest.js';

/** One chunk as a row of a lancedb index table (`meta` as JSON: rows of one table share one schema). */
export interface ChunkRow extends Record<string, unknown> {
  label: number;
  id: string;
  docId: string;
  /** The enclosing document (`meta.doc_id`, LongHisDoc's book) when it differs from docId, else null. */
  parentId: string | null;
  title: string;
  text: string;
  meta: string;
  vector: number[];
}

/** Columns every search reads back (everything but the vector). */
export const CHUNK_COLUMNS = ['label', 'id', 'docId', 'parentId', 'title', 'text', 'meta'] as const;

export function chunkTableSchema(dimension: number): Schema {
  return new Schema([
    new Field('label', new Int32(), false),
    new Field('id', new Utf8(), false),
    new Field('docId', new Utf8(), false),
    new Field('parentId', new Utf8(), true),
    new Field('title', new Utf8(), false),
    new Field('text', new Utf8(), false),
    new Field('meta', new Utf8(), false),
    new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), false),
  ]);
}

/** A URI with a scheme (`s3://…`) is used as it is; a path is relative to the index directory. */
export function resolveLanceUri(indexDir: string, uri: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri) || isAbsolute(uri)) return uri;
  return resolve(indexDir, uri);
}

export function connectLance(indexDir: string, params: Pick<LanceDbParams, 'uri'>): Promise<Connection> {
  return connect(resolveLanceUri(indexDir, params.uri));
}

export async function openLanceTable(indexDir: string, params: Pick<LanceDbParams, 'uri' | 'table'>): Promise<Table> {
  const db = await connectLance(indexDir, params);
  return db.openTable(params.table);
}

export function chunkRows(chunks: Chunk[], vectors: Float32Array[], firstLabel: number): ChunkRow[] {
  return chunks.map((chunk, i) => {
    const parent = chunk.meta.doc_id;
    return {
      label: firstLabel + i,
      id: chunk.id,
      docId: chunk.docId,
      parentId: typeof parent === 'string' && parent !== chunk.docId ? parent : null,
      title: chunk.title,
      text: chunk.text,
      meta: JSON.stringify(chunk.meta),
      vector: Array.from(vectors[i]!),
    };
  });
}

/** A SQL string literal for LanceDB filters (single quotes doubled). */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Rows of one document: its own chunks, or those whose parent document it is (as `ChunkStore.labelsOfDoc`). */
export function documentFilterSql(docId: string): string {
  return `\`docId\` = ${sqlString(docId)} OR \`parentId\` = ${sqlString(docId)}`;
}
