import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import unbzip2 from 'unbzip2-stream';

/** `js`: unbzip2-stream in this thread; `system`: a native bzip2 process; `auto`: native when on PATH. */
export type Bz2DecoderChoice = 'auto' | 'js' | 'system';

export interface Bz2Decoder {
  /** Name of what decodes (for messages and benchmarks): `unbzip2-stream` or the program's path. */
  name: string;
  output: Readable;
  /** Resolves once the decoder has finished cleanly; rejects with its complaint otherwise. */
  finished(): Promise<void>;
  close(): void;
}

// lbzip2 and pbzip2 decompress multistream files on several cores; bzip2 is the usual fallback.
const NATIVE_PROGRAMS = ['lbzip2', 'pbzip2', 'bzip2'];

export function findNativeBzip2(): string | undefined {
  for (const program of NATIVE_PROGRAMS) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (!dir) continue;
      try {
        accessSync(join(dir, program), constants.X_OK);
        return join(dir, program);
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * Decodes a bz2 byte stream, concatenated streams (multistream dumps) included. Native bzip2 is
 * ~2.5× faster than the pure-JS decoder here and runs beside the parser instead of in the thread
 * that feeds it; the JS decoder needs nothing installed.
 */
export function openBz2Decoder(input: Readable, choice: Bz2DecoderChoice): Bz2Decoder {
  const native = choice === 'js' ? undefined : findNativeBzip2();
  if (choice === 'system' && !native) throw new Error(`no native bzip2 on PATH (looked for ${NATIVE_PROGRAMS.join(', ')})`);
  if (native) return nativeDecoder(input, native);

  // unbzip2-stream is a classic `through` stream: piping it into a PassThrough gives backpressure
  // (classic pipe pauses it, and it pauses the file) and async iteration; errors are forwarded.
  const bz2 = unbzip2();
  const output = new PassThrough({ highWaterMark: 1 << 20 });
  bz2.on('error', (error: Error) => output.destroy(error));
  input.on('error', (error) => output.destroy(error));
  input.pipe(bz2).pipe(output);
  return { name: 'unbzip2-stream', output, finished: async () => {}, close: () => output.destroy() };
}

function nativeDecoder(input: Readable, program: string): Bz2Decoder {
  const child = spawn(program, ['-dc'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  // The decoder may stop reading early (corrupt data): its stdin then breaks, which is not news.
  child.stdin.on('error', () => {});
  input.on('error', (error) => child.stdout.destroy(error));
  input.pipe(child.stdin);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    name: program,
    output: child.stdout,
    async finished() {
      const code = await exited;
      // bzip2's first line says what went wrong; the rest is advice about bzip2recover.
      if (code !== 0) throw new Error(stderr.trim().split('\n')[0]?.trim() || `${program} exited with code ${code}`);
    },
    close() {
      input.unpipe(child.stdin);
      if (child.exitCode === null) child.kill();
    },
  };
}
