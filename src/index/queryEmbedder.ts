import { createEmbedder } from '../embedding/registry.js';
import type { TextEmbedder } from '../embedding/types.js';
import { InputError } from '../errors.js';
import { assertSameEmbedder } from './indexEmbedder.js';
import type { ComponentSpec, IndexManifest } from '../runFiles/indexManifest.js';

export interface QueryEmbedder {
  embedder: TextEmbedder;
  /** Disposes the embedder when it was created here (not when it was given). */
  release(): Promise<void>;
}

/**
 * The query embedder of an index (also the one that embeds added chunks): the given instance or spec,
 * else the manifest's spec re-created; refused when its identity (or its model files' fingerprint) differs from the index's.
 */
export async function queryEmbedderFor(dir: string, manifest: IndexManifest, given?: TextEmbedder | ComponentSpec): Promise<QueryEmbedder> {
  const recorded = manifest.embedder;
  if (!recorded) throw new InputError(`${dir}: a ${manifest.kind} index has no embedder`);
  const isInstance = given !== undefined && typeof (given as TextEmbedder).embedQuery === 'function';
  let embedder: TextEmbedder;
  if (isInstance) {
    embedder = given as TextEmbedder;
  } else {
    const spec = (given as ComponentSpec | undefined) ?? recorded.spec;
    if (!spec) throw new InputError(`${dir}: the index was built with an embedder given in code (its manifest records no spec); pass one`);
    embedder = await createEmbedder(spec);
  }
  // The manifest knows the width: an embedder that would ask its server (openai without `dimension`) need not.
  embedder.adoptDimension?.(recorded.identity.dimension);
  const release = async () => {
    if (!isInstance) await embedder.dispose();
  };
  try {
    await assertSameEmbedder(dir, recorded, embedder);
  } catch (error) {
    await release();
    throw error;
  }
  return { embedder, release };
}
