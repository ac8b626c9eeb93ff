import { join } from 'node:path';

/** Files of a corpus directory; a build runs in `<dir>.partial/` and is renamed into place at the end. */
export function corpusPaths(dir: string) {
  const partial = `${dir}.partial`;
  return {
    dir,
    chunks: join(dir, 'chunks.jsonl'),
    documents: join(dir, 'documents.jsonl'),
    manifest: join(dir, 'manifest.json'),
    partial,
    partialChunks: join(partial, 'chunks.jsonl'),
    partialDocuments: join(partial, 'documents.jsonl'),
    partialManifest: join(partial, 'manifest.json'),
    checkpoint: join(partial, 'checkpoint.json'),
  };
}
export type CorpusPaths = ReturnType<typeof corpusPaths>;
