import { isAbsolute, resolve } from 'node:path';
import { ChunkImageSchema, type Chunk } from '../runFiles/corpusFiles.js';
import type { CorpusInput } from './corpusInput.js';
import { DataFileError, InputError } from '../errors.js';
import type { PageImageRef } from '../runFiles/pageImage.js';

/** The corpus's image folder (manifest `imageDir`, absolute, or relative to the corpus directory); an image index needs one. */
export function corpusImageDir(corpus: CorpusInput): string {
  const imageDir = corpus.manifest.imageDir;
  if (typeof imageDir !== 'string' || imageDir === '') {
    throw new InputError(
      `${corpus.dir}: an index with documents "image" needs a corpus built with its page images (manifest.json has no imageDir; build the corpus with imageDir:)`,
    );
  }
  return isAbsolute(imageDir) ? imageDir : resolve(corpus.dir, imageDir);
}

/** The page image a chunk stands for; a chunk without one (or with a malformed one) is an error naming it. */
export function chunkPageImage(chunk: Chunk, imageDir: string, where: string): PageImageRef {
  const page = chunk.meta.page;
  const image = ChunkImageSchema.safeParse(chunk.meta.image);
  if (!image.success || typeof page !== 'number' || !Number.isInteger(page) || page < 1) {
    const what = chunk.meta.image === undefined ? 'has no meta.image' : !image.success ? `has a malformed meta.image (${image.error.issues[0]!.path.join('.') || 'image'}: ${image.error.issues[0]!.message})` : 'has no one-based meta.page';
    throw new DataFileError(`${where}: chunk "${chunk.id}" (document ${chunk.docId}) ${what}; an index with documents "image" embeds each chunk's page image`);
  }
  return { imageDir, docId: chunk.docId, page, ...image.data };
}
