import { createReadStream, existsSync } from 'node:fs';
import { open, readFile, stat, truncate } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { DataFileError, formatZodIssues } from '../errors.js';


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

/** One non-blank line of JSONL text (1-based `line`): its value, or why it is not JSON. */
export type JsonlEntry = { line: number; value: unknown } | { line: number; notJson: string };

/**
 * The non-blank lines of a JSONL text already in memory, each parsed; a line that is not JSON keeps
 * the parser's message, so each caller decides whether one bad line refuses the file or is listed.
 */
export function jsonlEntries(text: string): JsonlEntry[] {
  const entries: JsonlEntry[] = [];
  text.split('\n').forEach((raw, index) => {
    if (!raw.trim()) return;
    try {
      entries.push({ line: index + 1, value: JSON.parse(raw) });
    } catch (error) {
      entries.push({ line: index + 1, notJson: (error as Error).message });
    }
  });
  return entries;
}

/** The latest line per `key` of a log: a later line replaces an earlier one, keeping its first position. */
export function latestPerKey<T extends { key: string }>(lines: readonly T[]): T[] {
  return [...new Map(lines.map((line) => [line.key, line])).values()];
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

/**
 * Reads an append-only JSONL log (a run's items.jsonl, its diagnostics.jsonl), validating each line.
 * A kill can tear the last line (an append cut short): a last line without its newline is left out,
 * and so is an unparseable last line when `repair` is set; with `repair` the torn tail is also cut
 * off the file, so the next append starts on a clean line. A bad line anywhere else is an error
 * naming file and line. Lines come back in file order.
 */
export async function readAppendLog<T>(path: string, schema: z.ZodType<T>, options: { repair?: boolean } = {}): Promise<T[]> {
  if (!existsSync(path)) return [];
  const text = await readFile(path, 'utf8');
  const out: T[] = [];
  let offset = 0;
  let lineNo = 0;
  let goodBytes = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const line = nl === -1 ? text.slice(offset) : text.slice(offset, nl);
    const next = nl === -1 ? text.length : nl + 1;
    lineNo++;
    if (line.trim()) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        if (next >= text.length && (nl === -1 || options.repair)) break;
        throw new DataFileError(`${path}:${lineNo}: not valid JSON`);
      }
      if (nl === -1) break; // a line without its newline was cut short mid-append
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw new DataFileError(`${path}:${lineNo}: ${formatZodIssues(parsed.error)}`);
      out.push(parsed.data);
    }
    goodBytes += Buffer.byteLength(text.slice(offset, next), 'utf8');
    offset = next;
  }
  if (options.repair) {
    const size = (await stat(path)).size;
    if (goodBytes < size) await truncate(path, goodBytes);
  }
  return out;
}
