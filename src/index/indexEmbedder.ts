import type { TextEmbedder } from '../embedding/types.js';
import type { EmbedderIdentity } from '../runFiles/indexManifest.js';
import { InputError } from '../errors.js';

/** Refuses an embedder whose vectors would not be comparable with the index's, naming each field that differs. */
export function assertSameIdentity(indexDir: string, expected: EmbedderIdentity, actual: EmbedderIdentity): void {
  const differences = (Object.keys(expected) as (keyof EmbedderIdentity)[])
    .filter((key) => expected[key] !== actual[key])
    .map((key) => `${key}: index has ${JSON.stringify(expected[key])}, embedder has ${JSON.stringify(actual[key])}`);
  if (differences.length > 0) {
    throw new InputError(
      `${indexDir}: the embedder does not match the one this index was built with (${differences.join('; ')}); ` +
        `query with the index's embedder or rebuild the index`,
    );
  }
}

/**
 * Checks identity and weights fingerprint of a query/append embedder against an index manifest's record.
 * An embedder whose weights differ from those the index was built with (same model path and dimension,
 * but regenerated or swapped files) is refused: its vectors would silently rank the wrong chunks.
 */
export async function assertSameEmbedder(
  indexDir: string,
  recorded: { identity: EmbedderIdentity; fingerprint?: string },
  embedder: TextEmbedder,
): Promise<void> {
  assertSameIdentity(indexDir, recorded.identity, await embedder.identity());
  if (!recorded.fingerprint || !embedder.fingerprint) return;
  const actual = await embedder.fingerprint();
  if (actual !== recorded.fingerprint) {
    throw new InputError(
      `${indexDir}: the embedding model's files differ from those this index was built with ` +
        `(index has model fingerprint ${recorded.fingerprint}, the model now has ${actual}); ` +
        `restore the model the index was built with or rebuild the index`,
    );
  }
}
