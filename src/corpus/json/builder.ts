import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { DataFileError } from '../../errors.js';
import { readJsonl } from '../../io/jsonl.js';
import { parseJsonText } from '../../io/jsonText.js';
import type { RegistryEntry } from '../../registry.js';
import { toSimplified } from '../../text/simplify.js';
import { listInputFiles } from '../inputFiles.js';
import type { BuilderContext, BuilderItem, CorpusBuilder } from '../types.js';
import { jsonCollectionSchema, type JsonCollectionParams } from './builderSchema.js';

export { JsonCollectionParamsSchema, type JsonCollectionParams } from './builderSchema.js';

const RecordSchema = z.record(z.string(), z.unknown());

/** One document per JSON record, e.g. the chinese-poetry collections (title, author, paragraphs). */
export const jsonCollectionBuilder: RegistryEntry<JsonCollectionParams, CorpusBuilder, BuilderContext> = {
  ...jsonCollectionSchema,
  create(params, context) {
    const filesPromise = listInputFiles(context.baseDir, params.input, /\.jsonl?$/i);
    return {
      async inputFiles() {
        return (await filesPromise).map((file) => file.path);
      },
      async describeSource() {
        const files = await filesPromise;
        const path = files.length === 1 ? files[0]!.path : `${files[0]!.path} (+${files.length - 1} files)`;
        return { path, bytes: files.reduce((sum, f) => sum + f.bytes, 0) };
      },
      async *items(run) {
        let index = 0;
        let bytesDone = 0;
        for (const file of await filesPromise) {
          const records = file.path.toLowerCase().endsWith('.jsonl') ? readJsonl(file.path) : jsonArray(file.path, params.recordsPath);
          let position = 0;
          for await (const value of records) {
            position++;
            if (index++ < run.startAt) continue;
            yield toItem(value, file.path, position, params);
            if (run.signal?.aborted) return;
          }
          bytesDone += file.bytes;
          run.onBytes?.(bytesDone);
        }
      },
    };
  },
};

async function* jsonArray(path: string, recordsPath: string | undefined): AsyncGenerator<unknown> {
  let value = parseJsonText(path, await readFile(path, 'utf8'));
  for (const key of recordsPath?.split('.') ?? []) value = (value as Record<string, unknown> | undefined)?.[key];
  if (!Array.isArray(value)) throw new DataFileError(`${path}${recordsPath ? ` at ${recordsPath}` : ''}: expected an array of records`);
  for (const record of value as unknown[]) yield record;
}

function toItem(value: unknown, path: string, position: number, params: JsonCollectionParams): BuilderItem {
  const where = `${path}: record ${position}`;
  const record = RecordSchema.safeParse(value);
  if (!record.success) throw new DataFileError(`${where}: expected an object`);
  const r = record.data;
  const { fields } = params;
  const rawText = r[fields.text];
  let text: string;
  if (typeof rawText === 'string') text = rawText;
  else if (Array.isArray(rawText) && rawText.every((x) => typeof x === 'string')) text = rawText.join('\n');
  else if (rawText === undefined || rawText === null) return { kind: 'skipped', reason: 'noText' };
  else throw new DataFileError(`${where}: field "${fields.text}" must be a string or an array of strings`);
  const rawId = r[fields.id];
  if (rawId !== undefined && typeof rawId !== 'string' && typeof rawId !== 'number') {
    throw new DataFileError(`${where}: field "${fields.id}" must be a string or a number`);
  }
  // Without an id field, the record's place in its file is a stable id.
  const docId = rawId !== undefined && String(rawId) !== '' ? String(rawId) : `${basename(path).replace(/\.jsonl?$/i, '')}-${position}`;
  const rawTitle = r[fields.title];
  const title = typeof rawTitle === 'string' ? rawTitle : '';
  const meta: Record<string, unknown> = { source: basename(path) };
  for (const field of fields.meta) {
    const value = r[field];
    if (value !== undefined) meta[field] = params.simplify && typeof value === 'string' ? toSimplified(value) : value;
  }
  if (!text.trim()) return { kind: 'skipped', reason: 'emptyText', docId };
  return {
    kind: 'document',
    document: {
      docId,
      title: params.simplify ? toSimplified(title) : title,
      text: params.simplify ? toSimplified(text) : text,
      meta,
    },
  };
}
