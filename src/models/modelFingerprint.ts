import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { readFingerprintSidecar, writeFingerprintSidecar, type FingerprintSidecar } from '../runFiles/modelFiles.js';

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
  const stats: FingerprintSidecar['files'] = {};
  for (const file of files) {
    const s = await stat(join(dir, file));
    stats[file] = { size: s.size, mtimeMs: s.mtimeMs };
  }
  const memoKey = JSON.stringify([dir, stats]);
  const remembered = memo.get(memoKey);
  if (remembered) return remembered;

  const cached = await readFingerprintSidecar(dir);
  if (cached && JSON.stringify(cached.files) === JSON.stringify(stats)) {
    memo.set(memoKey, cached.fingerprint);
    return cached.fingerprint;
  }

  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0${stats[file]!.size}\0`);
    for await (const chunk of createReadStream(join(dir, file))) hash.update(chunk as Buffer);
  }
  const fingerprint = `sha256:${hash.digest('hex')}`;
  memo.set(memoKey, fingerprint);
  await writeFingerprintSidecar(dir, { fingerprint, files: stats });
  return fingerprint;
}
