import { openDumpBlocks, type DumpBlocksOptions } from './dumpBlocks.js';
import { DumpXmlReader, type DumpPage } from './dumpXml.js';

export interface DumpReadOptions extends DumpBlocksOptions {
  /** The `<siteinfo><base>` URL (e.g. https://zh.wikipedia.org/wiki/Wikipedia:首页). */
  onSiteBase?(url: string): void;
  signal?: AbortSignal;
}

/**
 * Streams the pages of a MediaWiki XML dump (`.xml`, `.xml.bz2`, multistream too) in bounded memory;
 * truncated or corrupt input ends with a DataFileError naming the byte offset and XML line.
 */
export async function* readDumpPages(path: string, options: DumpReadOptions = {}): AsyncGenerator<DumpPage> {
  const dump = openDumpBlocks(path, options);
  const reader = new DumpXmlReader(path, options.onSiteBase);
  const fail = (what: unknown): never => dump.fail(what, `XML line ${reader.line}`);
  const utf8 = new TextDecoder('utf-8');
  try {
    for await (const block of dump.blocks) {
      const pages = reader.write(utf8.decode(block, { stream: true }));
      reader.check(fail);
      for (const page of pages) yield page;
      if (options.signal?.aborted) return;
    }
    await dump.finished();
  } catch (error) {
    fail(error);
  } finally {
    dump.close();
  }
  for (const page of reader.finish(utf8.decode(), fail)) yield page;
}
