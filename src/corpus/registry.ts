import { Registry } from '../registry.js';
import type { BuilderContext, CorpusBuilder } from './types.js';
import { wikipediaDumpBuilder } from './wikipedia/builder.js';
import { mediawikiApiBuilder } from './mediawiki/builder.js';
import { longhisdocOcrBuilder } from './longhisdoc/builder.js';
import { jsonCollectionBuilder } from './json/builder.js';

/** Corpus builders by name; a config picks one with `builder: { name, ...params }`. */
export const corpusBuilders = new Registry<CorpusBuilder, BuilderContext>('corpus builder')
  .register(wikipediaDumpBuilder)
  .register(mediawikiApiBuilder)
  .register(longhisdocOcrBuilder)
  .register(jsonCollectionBuilder);
