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
 * A content fingerprint of a local model: sha256 over `config.json`, `tokenizer.json`,
 * `tokenizer_config.json`, `extraFiles` and the ONNX files in use (each prefixed by its relative name and size).
 * Two directories with the same path but regenerated or swapped weights get different fingerprints,
 * which is what index manifests need to refuse an index built with other weights. Hashing a 1.3 GB
 * model takes seconds, so the result is cached beside the model (and in memory) under the files'
 * size + mtime; a change to any of them re-hashes. A model directory that cannot be written to just
 * re-hashes once per process.
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
