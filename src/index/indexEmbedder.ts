import type { TextEmbedder } from '../embedding/types.js';
import type { EmbedderIdentity } from '../runFiles/indexManifest.js';
import { InputError } from '../errors.js';

/** Field-by-field differences between two identities, e.g. `model: "a" ≠ "b"`. */
export function identityDifferences(expected: EmbedderIdentity, actual: EmbedderIdentity): string[] {
  const keys = Object.keys(expected) as (keyof EmbedderIdentity)[];
  return keys
    .filter((key) => expected[key] !== actual[key])
    .map((key) => `${key}: index has ${JSON.stringify(expected[key])}, embedder has ${JSON.stringify(actual[key])}`);
}

/** Refuses an embedder whose vectors would not be comparable with the index's. */
export function assertSameIdentity(indexDir: string, expected: EmbedderIdentity, actual: EmbedderIdentity): void {
  const differences = identityDifferences(expected, actual);
  if (differences.length > 0) {
    throw new InputError(
      `${indexDir}: the embedder does not match the one this index was built with (${differences.join('; ')}); ` +
        `query with the index's embedder or rebuild the index`,
    );
  }
}

/**
 * Refuses an embedder whose weights differ from those the index was built with (same model path and
 * dimension, but regenerated or swapped files): its vectors would silently rank the wrong chunks.
 */
export async function assertSameFingerprint(indexDir: string, recorded: string | undefined, embedder: TextEmbedder): Promise<void> {
  if (!recorded || !embedder.fingerprint) return;
  const actual = await embedder.fingerprint();
  if (actual !== recorded) {
    throw new InputError(
      `${indexDir}: the embedding model's files differ from those this index was built with ` +
        `(index has model fingerprint ${recorded}, the model now has ${actual}); ` +
        `restore the model the index was built with or rebuild the index`,
    );
  }
}

/** Checks identity and weights fingerprint of a query/append embedder against an index manifest's record. */
export async function assertSameEmbedder(
  indexDir: string,
  recorded: { identity: EmbedderIdentity; fingerprint?: string },
  embedder: TextEmbedder,
): Promise<void> {
  assertSameIdentity(indexDir, recorded.identity, await embedder.identity());
  await assertSameFingerprint(indexDir, recorded.fingerprint, embedder);
}
