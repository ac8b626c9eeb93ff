import { basename } from 'node:path';
import { type Chunk, ChunkSchema, type CorpusManifest, corpusPaths, readCorpusManifest } from '../runFiles/corpusFiles.js';
import { readJsonl } from '../io/jsonl.js';

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
  const manifest = await readCorpusManifest(dir);
  const chunksPath = corpusPaths(dir).chunks;
  return { dir, name: manifest.name || basename(dir), manifest, chunksPath, chunks: () => readJsonl(chunksPath, ChunkSchema) };
}
