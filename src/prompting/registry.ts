import { Registry } from '../registry.js';
import { cotSchema } from './strategies/cotSchema.js';
import { longHisDocFullSchema } from './strategies/longhisdocFullSchema.js';
import { closedBookSchema, profSchema, roleSchema } from './strategies/noRetrievalSchema.js';
import { pageRagSchema, ragSchema } from './strategies/ragSchema.js';
import type { PromptStrategy } from './types.js';

/** Prompting strategies by name; each spec is `{ name, ...template overrides and options }`. */
export const strategies = new Registry<PromptStrategy, void>('strategy');

const noRetrieval = () => import('./strategies/noRetrieval.js');
const rag = () => import('./strategies/rag.js');

strategies
  .registerLazy(closedBookSchema, async () => (await noRetrieval()).createClosedBookStrategy)
  .registerLazy(roleSchema, async () => (await noRetrieval()).createRoleStrategy)
  .registerLazy(profSchema, async () => (await noRetrieval()).createProfStrategy)
  .registerLazy(cotSchema, async () => (await import('./strategies/cot.js')).createCotStrategy)
  .registerLazy(ragSchema, async () => (await rag()).createRagStrategy)
  .registerLazy(pageRagSchema, async () => (await rag()).createPageRagStrategy)
  .registerLazy(longHisDocFullSchema, async () => (await import('./strategies/longhisdocFull.js')).createLongHisDocFullStrategy);
