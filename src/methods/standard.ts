import { createRagStrategy } from '../prompting/strategies/rag.js';
import type { RagParams } from '../prompting/strategies/ragSchema.js';
import { singleShotMethod } from './singleShot.js';
import type { RagMethod } from './types.js';

/**
 * Standard RAG: retrieve k passages for the question once, put them in the prompt, answer — the
 * `rag` strategy as a method (same params: context budget, ordering, persona, template overrides).
 */
export async function createStandardMethod(params: RagParams): Promise<RagMethod> {
  return singleShotMethod(await createRagStrategy(params), 'standard');
}
