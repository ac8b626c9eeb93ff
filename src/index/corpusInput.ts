import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ChunkSchema, type Chunk } from '../chunking/types.js';
import { DataFileError, formatZodIssues, InputError } from '../errors.js';
import { CorpusManifestSchema, type CorpusManifest } from '../corpus/types.js';
import { readJsonl } from '../io/jsonl.js';
import { parseJsonText } from '../io/jsonText.js';

/** A built corpus directory as an index build reads it: its manifest and a stream of its chunks. */
export interface CorpusInput {
  dir: string;
  name: string;
  manifest: CorpusManifest;
  chunksPath: string;
  chunks(): AsyncGenerator<Chunk>;
}

/** Opens `corpora/<name>/` (manifest.json + chunks.jsonl); the corpus must be complete. */
export async function openCorpusInput(dir: string): Promise<CorpusInput> {
  const manifestPath = join(dir, 'manifest.json');
  let raw: string;
  try {
    raw = await readFile(manifestPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new InputError(`${dir}: not a corpus directory (no manifest.json; build it with \`hisrag corpus build\`)`);
    }
    throw error;
  }
  const value = parseJsonText(manifestPath, raw);
  const parsed = CorpusManifestSchema.safeParse(value);
  if (!parsed.success) throw new DataFileError(formatZodIssues(parsed.error, manifestPath));
  const manifest = parsed.data;
  if (!manifest.complete) throw new InputError(`${dir}: corpus build is incomplete (manifest.complete is false)`);
  const chunksPath = join(dir, 'chunks.jsonl');
  return {
    dir,
    name: manifest.name || basename(dir),
    manifest,
    chunksPath,
    chunks: () => readJsonl(chunksPath, ChunkSchema),
  };
}
