import { FullDocumentStrategy } from '../fullDocumentStrategy.js';
import { resolveTemplate } from '../templateOverrides.js';
import { longHisDocFullTemplate } from '../templates/longhisdocFull.js';
import { longHisDocImagesTemplate, longHisDocImagesTextTemplate } from '../templates/pageImages.js';
import { tokenCounters } from '../../text/tokenCounter.js';
import type { PromptStrategy } from '../types.js';
import type { LongHisDocFullParams } from './longhisdocFullSchema.js';

export async function createLongHisDocFullStrategy(params: LongHisDocFullParams): Promise<PromptStrategy> {
  const builtIn = { text: longHisDocFullTemplate, image: longHisDocImagesTemplate, 'image+text': longHisDocImagesTextTemplate }[params.input];
  const template = await resolveTemplate(builtIn, params, 'longhisdoc-full', ['question', 'context']);
  return new FullDocumentStrategy({
    name: 'longhisdoc-full',
    template,
    instructions: params.instructions,
    ocrDir: params.ocrDir,
    pages: params.pages,
    budget: params.contextBudget,
    counter: tokenCounters[params.tokenCounter],
    input: params.input,
    imageDir: params.imageDir,
    maxImages: params.maxImages,
  });
}
