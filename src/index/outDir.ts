import { mkdir, readdir } from 'node:fs/promises';
import { InputError } from '../errors.js';
import { assertSameIdentity } from './indexEmbedder.js';
import { readIndexManifest, type IndexManifest } from '../runFiles/indexManifest.js';

/**
 * Every kind of index alike: a fresh build needs an empty directory (or one holding no index); --resume
 * needs an interrupted build whose settings (`settingsOf`) match the planned one's. Gives the existing
 * manifest when resuming.
 */
export async function prepareIndexOutDir(
  out: string,
  planned: IndexManifest,
  resume: boolean,
  settingsOf: (manifest: IndexManifest) => unknown,
): Promise<IndexManifest | undefined> {
  await mkdir(out, { recursive: true });
  const existing = readIndexManifest(out);
  if (!existing) {
    const entries = (await readdir(out)).filter((name) => !name.startsWith('.'));
    if (entries.length > 0) throw new InputError(`${out}: directory is not empty and holds no index; choose another --out`);
    return undefined;
  }
  if (!resume) {
    throw new InputError(
      existing.complete
        ? `${out}: an index is already built here; delete it or choose another --out`
        : `${out}: an interrupted index build is here; continue it with --resume or delete the directory`,
    );
  }
  const before = JSON.stringify(settingsOf(existing));
  const now = JSON.stringify(settingsOf(planned));
  if (before !== now) {
    if (existing.embedder && planned.embedder) {
      assertSameIdentity(out, existing.embedder.identity, planned.embedder.identity);
      if (existing.embedder.fingerprint !== planned.embedder.fingerprint) {
        throw new InputError(
          `${out}: --resume with other model files than the interrupted build (model fingerprint was ${existing.embedder.fingerprint}, now ${planned.embedder.fingerprint})`,
        );
      }
    }
    throw new InputError(`${out}: --resume with different settings than the interrupted build (was ${before}, now ${now})`);
  }
  return existing;
}
