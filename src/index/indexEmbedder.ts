import { createEmbedder } from '../embedding/registry.js';
import type { EmbedderIdentity, TextEmbedder } from '../embedding/types.js';
import { InputError } from '../errors.js';
import type { ComponentSpec } from './manifest.js';

/** Creates an embedder from its registry spec (`{ name: 'transformers', model, ... }`). */
export async function embedderFromSpec(spec: ComponentSpec): Promise<TextEmbedder> {
  return createEmbedder(spec);
}

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
