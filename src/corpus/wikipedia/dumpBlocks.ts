import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { DataFileError } from '../../errors.js';
import { openBz2Decoder, type Bz2DecoderChoice } from './bz2Decoder.js';

export interface DumpBlocksOptions {
  /** How .bz2 is decoded (default `auto`: native bzip2 when installed, else unbzip2-stream). */
  bz2Decoder?: Bz2DecoderChoice;
  /** Absolute bytes read from the file so far (compressed bytes for .bz2), after each block. */
  onBytes?(bytes: number): void;
}

/** The decoded bytes of a dump file, `.xml` or `.xml.bz2`, block by block. */
export interface DumpBlocks {
  blocks: AsyncIterable<Buffer>;
  /**
   * Throws the DataFileError for a failure: `what`, or (when `error` came from reading or
   * decoding) what it means; `where` adds a position (e.g. the XML line).
   */
  fail(what: string | unknown, where?: string): never;
  /** Resolves once the decoder finished cleanly; rejects with its complaint otherwise. */
  finished(): Promise<void>;
  close(): void;
}

/** Opens a dump for reading; multistream `.bz2` files (concatenated bz2 streams) are read in sequence. */
export function openDumpBlocks(path: string, options: DumpBlocksOptions = {}): DumpBlocks {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  let bytesRead = 0;
  file.on('data', (block) => {
    bytesRead += block.length;
  });
  const compressed = /\.bz2$/i.test(path);
  const decoder = compressed ? openBz2Decoder(file, options.bz2Decoder ?? 'auto') : undefined;
  const decoded: Readable = decoder ? decoder.output : file;
  async function* blocks(): AsyncGenerator<Buffer> {
    for await (const block of decoded) {
      options.onBytes?.(bytesRead);
      yield block as Buffer;
    }
  }
  return {
    blocks: blocks(),
    fail(what, where) {
      if (what instanceof DataFileError) throw what;
      let message: string;
      if (typeof what === 'string') message = what;
      else {
        const detail = (what as Error).message;
        // unbzip2-stream runs off the end of a cut block with a TypeError: its message means nothing to a user.
        message = compressed
          ? `bz2 data is truncated or corrupt (${what instanceof TypeError ? 'the compressed data ends inside a block' : detail})`
          : `read error (${detail})`;
      }
      throw new DataFileError(`${path}: ${message} (after ${bytesRead} bytes of the file${compressed ? ', compressed' : ''}${where ? `, ${where}` : ''})`);
    },
    finished: async () => decoder?.finished(),
    close() {
      file.destroy();
      decoder?.close();
    },
  };
}
