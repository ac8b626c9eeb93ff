import { resolveTemplate } from '../templateOverrides.js';
import { TemplateStrategy } from '../templateStrategy.js';
import { COT_INSTRUCTION, cotTemplate, FINAL_ANSWER_MARKER } from '../templates/cot.js';
import { profTemplate } from '../templates/prof.js';
import { ragTemplate } from '../templates/rag.js';
import { pageRagImagesTemplate, pageRagImagesTextTemplate, pageRagTextTemplate } from '../templates/pageImages.js';
import type { PromptTemplate } from '../templates/promptTemplate.js';
import { roleTemplate } from '../templates/role.js';
import { tokenCounters } from '../../text/tokenCounter.js';
import type { PromptStrategy } from '../types.js';
import type { RagParams } from './ragSchema.js';

/** The depths page retrieval runs at when neither the entry nor `retrieval.k` names any. */
export const PAGE_DEPTHS = [1, 3, 5, 10] as const;

const SYSTEMS = { role: roleTemplate.system, prof: profTemplate.system, cot: cotTemplate.system } as const;

export const createRagStrategy = (params: RagParams) => createRag('rag', params, ragTemplate);

export const createPageRagStrategy = (params: RagParams) => createRag('page-rag', params, { text: pageRagTextTemplate, image: pageRagImagesTemplate, 'image+text': pageRagImagesTextTemplate }[params.input], PAGE_DEPTHS);

async function createRag(name: string, params: RagParams, base: PromptTemplate, defaultDepths?: readonly number[]): Promise<PromptStrategy> {
  // A plain `rag` with image input takes the page-image wording; personas replace the system message either way.
  const chosen = name === 'rag' && params.input !== 'text' ? (params.input === 'image' ? pageRagImagesTemplate : pageRagImagesTextTemplate) : base;
  const builtIn = params.persona === 'plain' ? chosen : { ...chosen, system: SYSTEMS[params.persona] };
  const template = await resolveTemplate(builtIn, params, name, ['question', 'context']);
  const cot = params.persona === 'cot';
  return new TemplateStrategy({
    name,
    template,
    instructions: params.instructions,
    ...(cot ? { instructionPrefix: COT_INSTRUCTION, finalAnswerMarker: FINAL_ANSWER_MARKER } : {}),
    retrieval: {
      budget: params.contextBudget,
      counter: tokenCounters[params.tokenCounter],
      ordering: params.ordering,
      showPages: params.showPages,
      input: params.input,
      imageDir: params.imageDir,
      maxImages: params.maxImages,
    },
    ...(defaultDepths ? { defaultDepths } : {}),
  });
}
