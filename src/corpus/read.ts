import { existsSync } from 'node:fs';
import { ChunkSchema, type Chunk } from '../chunking/types.js';
import { DataFileError } from '../errors.js';
import { readJsonl } from '../io/jsonl.js';
import { corpusPaths } from './paths.js';
import { CorpusDocumentSchema, CorpusManifestSchema, type CorpusDocument, type CorpusManifest } from './types.js';
import { readJsonFile } from '../io/jsonText.js';

/** Reads `<dir>/manifest.json`; refuses a corpus whose build has not finished. */
export async function readCorpusManifest(corpusDir: string): Promise<CorpusManifest> {
  const paths = corpusPaths(corpusDir);
  const manifest = readJsonFile(paths.manifest, CorpusManifestSchema);
  if (!manifest && existsSync(paths.partial)) {
    throw new DataFileError(
      `${corpusDir}: the corpus is incomplete — its build was interrupted or failed (state in ${paths.partial}); rerun \`hisrag corpus build\` with --resume`,
    );
  }
  if (!manifest) throw new DataFileError(`${paths.manifest}: not found — ${corpusDir} is not a built corpus (run \`hisrag corpus build\`)`);
  if (!manifest.complete) {
    throw new DataFileError(`${paths.manifest}: the corpus is incomplete (complete: false); rebuild it with \`hisrag corpus build\``);
  }
  return manifest;
}

/** Streams the chunks of a finished corpus, each validated; errors name file and line. */
export async function* readChunks(corpusDir: string): AsyncGenerator<Chunk> {
  await readCorpusManifest(corpusDir);
  yield* readJsonl(corpusPaths(corpusDir).chunks, ChunkSchema);
}

/**
 * Streams the documents of a finished corpus (`documents.jsonl`: the texts chunk spans point into);
 * a corpus built before documents were kept has none: rebuild it.
 */
export async function* readCorpusDocuments(corpusDir: string): AsyncGenerator<CorpusDocument> {
  await readCorpusManifest(corpusDir);
  const file = corpusPaths(corpusDir).documents;
  if (!existsSync(file)) throw new DataFileError(`${file}: not found — ${corpusDir} was built before corpora kept their documents' texts; rebuild it (\`hisrag corpus build\`)`);
  yield* readJsonl(file, CorpusDocumentSchema);
}
