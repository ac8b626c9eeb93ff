import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { atomicWriteJson } from '../io/atomicWrite.js';

/** Sidecar in the model directory: the last computed fingerprint and the size+mtime of the files it covers. */
export const FINGERPRINT_CACHE_FILE = '.hisrag-fingerprint.json';

const CacheSchema = z.object({
  fingerprint: z.string(),
  files: z.record(z.string(), z.object({ size: z.number(), mtimeMs: z.number() })),
});
type Cache = z.infer<typeof CacheSchema>;

/** In-process memo, keyed by directory + file stats, so a process hashes a model at most once. */
const memo = new Map<string, string>();

/**
 * sha256 over a local model's `config.json`, tokenizer files, `extraFiles` and ONNX files in use (each
 * prefixed by its name and size): regenerated or swapped weights get another fingerprint. Hashing
 * takes seconds for a large model, so the result is cached beside it (and in memory) by size + mtime.
 */
export async function modelFingerprint(dir: string, onnxFile: string | string[], extraFiles: string[] = []): Promise<string> {
  const onnxFiles = typeof onnxFile === 'string' ? [onnxFile] : onnxFile;
  const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', ...extraFiles, ...onnxFiles.map((file) => relative(dir, file))];
  const stats: Cache['files'] = {};
  for (const file of files) {
    const s = await stat(join(dir, file));
    stats[file] = { size: s.size, mtimeMs: s.mtimeMs };
  }
  const memoKey = JSON.stringify([dir, stats]);
  const remembered = memo.get(memoKey);
  if (remembered) return remembered;

  const cachePath = join(dir, FINGERPRINT_CACHE_FILE);
  const cached = await readFile(cachePath, 'utf8')
    .then((raw) => CacheSchema.safeParse(JSON.parse(raw)))
    .catch(() => undefined);
  if (cached?.success && JSON.stringify(cached.data.files) === JSON.stringify(stats)) {
    memo.set(memoKey, cached.data.fingerprint);
    return cached.data.fingerprint;
  }

  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0${stats[file]!.size}\0`);
    for await (const chunk of createReadStream(join(dir, file))) hash.update(chunk as Buffer);
  }
  const fingerprint = `sha256:${hash.digest('hex')}`;
  memo.set(memoKey, fingerprint);
  // Only a cache: a read-only model directory (a shared hub cache) is fine, the next process re-hashes.
  await atomicWriteJson(cachePath, { fingerprint, files: stats } satisfies Cache).catch(() => undefined);
  return fingerprint;
}
