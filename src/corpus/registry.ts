import { Registry } from '../registry.js';
import type { BuilderContext, CorpusBuilder } from './types.js';
import { wikipediaDumpSchema } from './wikipedia/builderSchema.js';
import { mediawikiApiSchema } from './mediawiki/builderSchema.js';
import { longhisdocOcrSchema } from './longhisdoc/builderSchema.js';
import { jsonCollectionSchema } from './json/builderSchema.js';

/** Corpus builders by name; a config picks one with `builder: { name, ...params }`. */
export const corpusBuilders = new Registry<CorpusBuilder, BuilderContext>('corpus builder')
  .registerLazy(wikipediaDumpSchema, async () => (await import('./wikipedia/builder.js')).wikipediaDumpBuilder.create)
  .registerLazy(mediawikiApiSchema, async () => (await import('./mediawiki/builder.js')).mediawikiApiBuilder.create)
  .registerLazy(longhisdocOcrSchema, async () => (await import('./longhisdoc/builder.js')).longhisdocOcrBuilder.create)
  .registerLazy(jsonCollectionSchema, async () => (await import('./json/builder.js')).jsonCollectionBuilder.create);
