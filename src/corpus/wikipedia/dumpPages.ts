import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { openBz2Decoder, type Bz2DecoderChoice } from './bz2Decoder.js';
import { DataFileError } from '../../errors.js';

/** One `<page>` of a MediaWiki XML export (schema 0.10/0.11), as the dump has it. */
export interface DumpPage {
  ns: number;
  /** Page id (not the revision id). */
  id: string;
  title: string;
  /** The page has a `<redirect>` element. */
  redirect: boolean;
  /** Wikitext of the (latest) revision. */
  text: string;
}

export interface DumpReadOptions {
  /** Absolute bytes read from the file so far (compressed bytes for .bz2). */
  onBytes?(bytes: number): void;
  /** The `<siteinfo><base>` URL (e.g. https://zh.wikipedia.org/wiki/Wikipedia:首页). */
  onSiteBase?(url: string): void;
  signal?: AbortSignal;
  /** How .bz2 is decoded (default `auto`: native bzip2 when installed, else unbzip2-stream). */
  bz2Decoder?: Bz2DecoderChoice;
}

/**
 * Streams the pages of a MediaWiki XML dump, `.xml` or `.xml.bz2` (multistream files are
 * concatenated bz2 streams; both decoders in bz2Decoder.ts read them in sequence). Memory stays bounded by
 * one read block plus the pages it completes. A truncated bz2 file, corrupt data or malformed XML
 * ends with a DataFileError naming the file, the byte offset read and the XML line.
 */
export async function* readDumpPages(path: string, options: DumpReadOptions = {}): AsyncGenerator<DumpPage> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  let bytesRead = 0;
  file.on('data', (block) => {
    bytesRead += block.length;
  });
  const compressed = /\.bz2$/i.test(path);
  const decoder = compressed ? openBz2Decoder(file, options.bz2Decoder ?? 'auto') : undefined;
  const decoded: Readable = decoder ? decoder.output : file;

  const parser = new SaxesParser({ fileName: path });
  const completed: DumpPage[] = [];
  const stack: string[] = [];
  let page: DumpPage | undefined;
  let field: 'ns' | 'id' | 'title' | 'text' | 'base' | undefined;
  let buffer = '';
  let sawPageId = false;
  let parseError: Error | undefined;

  parser.on('error', (error) => {
    parseError ??= error;
  });
  parser.on('opentag', (tag) => {
    const parent = stack[stack.length - 1];
    stack.push(tag.name);
    if (tag.name === 'page') {
      page = { ns: 0, id: '', title: '', redirect: false, text: '' };
      sawPageId = false;
      return;
    }
    if (page) {
      if (tag.name === 'redirect' && parent === 'page') page.redirect = true;
      else if (tag.name === 'ns' && parent === 'page') field = 'ns';
      else if (tag.name === 'id' && parent === 'page' && !sawPageId) field = 'id';
      else if (tag.name === 'title' && parent === 'page') field = 'title';
      else if (tag.name === 'text' && parent === 'revision') field = 'text';
    } else if (tag.name === 'base' && parent === 'siteinfo') {
      field = 'base';
    }
    buffer = '';
  });
  const onText = (text: string) => {
    if (field) buffer += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    stack.pop();
    if (field) {
      if (field === 'base') options.onSiteBase?.(buffer.trim());
      else if (page && field === 'ns') page.ns = Number(buffer.trim());
      else if (page && field === 'id') {
        page.id = buffer.trim();
        sawPageId = true;
      } else if (page && field === 'title') page.title = buffer;
      else if (page && field === 'text') page.text = buffer; // a later revision replaces an earlier one
      field = undefined;
      buffer = '';
    }
    if (tag.name === 'page' && page) {
      completed.push(page);
      page = undefined;
    }
  });

  const fail = (what: string): never => {
    throw new DataFileError(`${path}: ${what} (after ${bytesRead} bytes of the file${compressed ? ', compressed' : ''}, XML line ${parser.line})`);
  };
  const utf8 = new TextDecoder('utf-8');
  try {
    for await (const block of decoded) {
      parser.write(utf8.decode(block as Buffer, { stream: true }));
      if (parseError) fail(`malformed XML: ${parseError.message}`);
      options.onBytes?.(bytesRead);
      while (completed.length > 0) yield completed.shift()!;
      if (options.signal?.aborted) return;
    }
    await decoder?.finished();
  } catch (error) {
    if (error instanceof DataFileError) throw error;
    const message = (error as Error).message;
    // unbzip2-stream runs off the end of a cut block with a TypeError: its message means nothing to a user.
    const detail = error instanceof TypeError ? 'the compressed data ends inside a block' : message;
    fail(compressed ? `bz2 data is truncated or corrupt (${detail})` : `read error (${message})`);
  } finally {
    file.destroy();
    decoder?.close();
  }
  parser.write(utf8.decode());
  if (parseError) fail(`malformed XML: ${(parseError as Error).message}`);
  if (stack.length > 0) fail(`the XML ends inside <${stack.join('><')}> — the file is truncated`);
  parser.close();
  if (parseError) fail(`malformed XML: ${(parseError as Error).message}`);
  while (completed.length > 0) yield completed.shift()!;
}
