import { openDumpBlocks } from './dumpBlocks.js';
import type { DumpReadOptions } from './dumpPages.js';
import { DumpXmlReader } from './dumpXml.js';

/** A run of whole `<page>` elements cut from a dump, as UTF-8 bytes (in a buffer of its own). */
export interface PageBatchBytes {
  xml: Uint8Array;
  pages: number;
  /** Index in the dump (counting from 0) of the batch's first page. */
  firstPage: number;
}

export interface PageBatchOptions extends DumpReadOptions {
  /** Bytes of XML per batch (a batch ends at the first page end past it). */
  batchBytes: number;
  /** Pages to pass over first (resume): they are cut out without being parsed. */
  startAt?: number;
}

const PAGE_OPEN = Buffer.from('<page>');
const PAGE_CLOSE = Buffer.from('</page>');

/**
 * Cuts a dump into batches of whole pages without parsing them (escaped page text never holds a literal
 * `</page>`): the reading thread only decompresses and searches; workers parse. What precedes the first
 * page and follows the last is parsed here, so a truncated file still says what is unclosed.
 */
export async function* readPageBatches(path: string, options: PageBatchOptions): AsyncGenerator<PageBatchBytes> {
  const dump = openDumpBlocks(path, options);
  // Sees the XML outside the pages: the header, then whatever follows the last page end.
  const frame = new DumpXmlReader(path, options.onSiteBase);
  const fail = (what: unknown): never => dump.fail(what);
  let skip = options.startAt ?? 0;
  let pageIndex = 0;
  let inHeader = true;
  let held: Buffer[] = [];
  let heldBytes = 0;

  // Cuts the held bytes into batches of at least batchBytes of whole pages (all of them when
  // `final`); what follows stays held. Each batch is copied into an ArrayBuffer of its own (never
  // Node's shared pool), so that it can be transferred.
  const cut = (final: boolean): PageBatchBytes[] => {
    const all = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
    const batches: PageBatchBytes[] = [];
    let start = 0;
    let pages = 0;
    let end = 0;
    const emit = () => {
      batches.push({ xml: new Uint8Array(all.subarray(start, end)), pages, firstPage: (options.startAt ?? 0) + pageIndex });
      pageIndex += pages;
      start = end;
      pages = 0;
    };
    for (let at = all.indexOf(PAGE_CLOSE); at >= 0; at = all.indexOf(PAGE_CLOSE, at + PAGE_CLOSE.length)) {
      end = at + PAGE_CLOSE.length;
      if (skip > 0) {
        skip--;
        start = end;
        continue;
      }
      pages++;
      if (end - start >= options.batchBytes) emit();
    }
    if (final && pages > 0) emit();
    const rest = all.subarray(start); // pages not yet in a batch, and the start of the next one
    held = rest.length > 0 ? [rest] : [];
    heldBytes = rest.length;
    return batches;
  };

  try {
    for await (const block of dump.blocks) {
      held.push(block);
      heldBytes += block.length;
      if (inHeader) {
        const all = Buffer.concat(held, heldBytes);
        const first = all.indexOf(PAGE_OPEN);
        if (first < 0 && heldBytes < 1 << 24) {
          held = [all];
          continue;
        }
        const headerEnd = first < 0 ? all.length : first;
        frame.write(all.subarray(0, headerEnd).toString('utf8'));
        frame.check(fail);
        held = [all.subarray(headerEnd)];
        heldBytes = all.length - headerEnd;
        inHeader = false;
      }
      if (heldBytes >= options.batchBytes) for (const batch of cut(false)) yield batch;
      if (options.signal?.aborted) return;
    }
    await dump.finished();
  } catch (error) {
    fail(error);
  } finally {
    dump.close();
  }
  if (heldBytes > 0) for (const batch of cut(true)) yield batch;
  // Only the end of the document may follow the last page.
  frame.finish(held.map((b) => b.toString('utf8')).join(''), fail);
}
