import type { Generator } from '../generation/types.js';

/**
 * The generator as one repeated sample sees it: every call carries the sample's index (`sample`),
 * which the generator puts in its response cache key (after sample 0) and a sampling stand-in uses
 * to vary its answer; the methods stay unaware of samples. Sample 0 is the generator itself.
 */
export function forSample(generator: Generator, sample: number): Generator {
  if (sample === 0) return generator;
  return {
    name: generator.name,
    model: generator.model,
    generate: (messages, options = {}) => generator.generate(messages, { ...options, sample }),
    ...(generator.chatTurn ? { chatTurn: (messages, options) => generator.chatTurn!(messages, { ...options, sample }) } : {}),
    ...(generator.complete ? { complete: (prompt, options = {}) => generator.complete!(prompt, { ...options, sample }) } : {}),
    ...(generator.isCached ? { isCached: (messages) => generator.isCached!(messages, { sample }) } : {}),
    ...(generator.imageTokens ? { imageTokens: (image) => generator.imageTokens!(image) } : {}),
    describe: () => generator.describe(),
  };
}
