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
  .registerLazy(closedBookSchema, async () => (await noRetrieval()).closedBookStrategy.create)
  .registerLazy(roleSchema, async () => (await noRetrieval()).roleStrategy.create)
  .registerLazy(profSchema, async () => (await noRetrieval()).profStrategy.create)
  .registerLazy(cotSchema, async () => (await import('./strategies/cot.js')).cotStrategy.create)
  .registerLazy(ragSchema, async () => (await rag()).ragStrategy.create)
  .registerLazy(pageRagSchema, async () => (await rag()).pageRagStrategy.create)
  .registerLazy(longHisDocFullSchema, async () => (await import('./strategies/longhisdocFull.js')).longHisDocFullStrategy.create);
