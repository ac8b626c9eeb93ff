import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { formatZodIssues } from '../config/errors.js';
import { DataFileError } from '../errors.js';


/** Streams a JSONL file line by line, validating each record; errors name file and line. */
export async function* readJsonl<T>(path: string, schema?: z.ZodType<T>): AsyncGenerator<T> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new DataFileError(`${path}:${lineNo}: not valid JSON (${(error as Error).message})`);
    }
    if (schema) {
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw new DataFileError(`${path}:${lineNo}: ${formatZodIssues(parsed.error)}`);
      yield parsed.data;
    } else {
      yield value as T;
    }
  }
}

/**
 * Appends records one line at a time with an fsync after each batch, so an interrupted
 * run keeps every line it finished (a torn last line is detected and dropped on resume).
 */
export class JsonlAppender {
  private constructor(private readonly handle: Awaited<ReturnType<typeof open>>) {}

  static async open(path: string): Promise<JsonlAppender> {
    return new JsonlAppender(await open(path, 'a'));
  }

  async append(records: unknown[]): Promise<void> {
    if (records.length === 0) return;
    await this.handle.write(records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await this.handle.sync();
  }

  /** Appends lines already serialized (each ending in `\n`), then fsyncs. */
  async appendBytes(blocks: Uint8Array[]): Promise<void> {
    if (blocks.length === 0) return;
    await this.handle.writev(blocks);
    await this.handle.sync();
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
