import type { RegistryEntry } from '../registry.js';
import { RagParamsSchema, ragStrategy, type RagParams } from '../prompting/strategies/rag.js';
import { singleShotMethod } from './singleShot.js';
import type { RagMethod } from './types.js';

/**
 * Standard RAG: retrieve k passages for the question once, put them in the prompt, answer — the
 * `rag` strategy as a method (same params: context budget, ordering, persona, template overrides).
 */
export const standardMethod: RegistryEntry<RagParams, RagMethod, void> = {
  name: 'standard',
  description: 'retrieve k once, prompt, answer (the rag strategy); 1 retrieval, 1 generation',
  params: RagParamsSchema,
  async create(params) {
    return singleShotMethod(await ragStrategy.create(params, undefined), 'standard');
  },
};
