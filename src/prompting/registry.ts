import { Registry } from '../registry.js';
import { closedBookStrategy, profStrategy, roleStrategy } from './strategies/noRetrieval.js';
import { cotStrategy } from './strategies/cot.js';
import { longHisDocFullStrategy } from './strategies/longhisdocFull.js';
import { pageRagStrategy, ragStrategy } from './strategies/rag.js';
import type { PromptStrategy } from './types.js';

/** Prompting strategies by name; each spec is `{ name, ...template overrides and options }`. */
export const strategies = new Registry<PromptStrategy, void>('strategy');

strategies
  .register(closedBookStrategy)
  .register(roleStrategy)
  .register(profStrategy)
  .register(cotStrategy)
  .register(ragStrategy)
  .register(pageRagStrategy)
  .register(longHisDocFullStrategy);
