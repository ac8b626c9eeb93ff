import { ConfigError } from '../errors.js';
import { Registry } from '../registry.js';
import { strategies } from '../prompting/registry.js';
import { adaptiveSchema } from './adaptiveSchema.js';
import { agentSchema } from './agentSchema.js';
import { compressSchema } from './compressSchema.js';
import { cragSchema } from './cragSchema.js';
import { flareSchema } from './flareSchema.js';
import { httpSchema } from './httpSchema.js';
import { hydeSchema } from './hydeSchema.js';
import { ircotSchema } from './ircotSchema.js';
import { iterRetGenSchema } from './iterRetGenSchema.js';
import { langchainRunnableSchema } from './langchainRunnableSchema.js';
import { outputsSchema } from './outputsSchema.js';
import { queryRewriteSchema } from './queryRewriteSchema.js';
import { ragFusionSchema } from './ragFusionSchema.js';
import { refineSchema } from './refineSchema.js';
import { searchO1Schema } from './searchO1Schema.js';
import { searcherSchema } from './searcherSchema.js';
import { selfAskSchema } from './selfAskSchema.js';
import { standardSchema } from './standardSchema.js';
import { sureSchema } from './sureSchema.js';
import type { RagMethod } from './types.js';

/** RAG methods by name; each spec is `{ name, ...params }` in an experiment's `strategies:` list. */
export const methods = new Registry<RagMethod, void>('method');

methods
  .registerLazy(standardSchema, async () => (await import('./standard.js')).createStandardMethod)
  .registerLazy(refineSchema, async () => (await import('./refine.js')).createRefineMethod)
  .registerLazy(adaptiveSchema, async () => (await import('./adaptive.js')).createAdaptiveMethod)
  .registerLazy(iterRetGenSchema, async () => (await import('./iterRetGen.js')).createIterRetGenMethod)
  .registerLazy(ircotSchema, async () => (await import('./ircot.js')).createIrcotMethod)
  .registerLazy(selfAskSchema, async () => (await import('./selfAsk.js')).createSelfAskMethod)
  .registerLazy(sureSchema, async () => (await import('./sure.js')).createSureMethod)
  // Query-side methods, corrective retrieval, context compression.
  .registerLazy(hydeSchema, async () => (await import('./hyde.js')).createHydeMethod)
  .registerLazy(queryRewriteSchema, async () => (await import('./queryRewrite.js')).createQueryRewriteMethod)
  .registerLazy(ragFusionSchema, async () => (await import('./ragFusion.js')).createRagFusionMethod)
  .registerLazy(cragSchema, async () => (await import('./crag.js')).createCragMethod)
  .registerLazy(compressSchema, async () => (await import('./compress.js')).createCompressMethod)
  .registerLazy(agentSchema, async () => (await import('./agent.js')).createAgentMethod)
  // Reasoning with search, and active retrieval (issue 34).
  .registerLazy(searchO1Schema, async () => (await import('./searchO1.js')).createSearchO1Method)
  .registerLazy(searcherSchema, async () => (await import('./searcher.js')).createSearcherMethod)
  .registerLazy(flareSchema, async () => (await import('./flare.js')).createFlareMethod)
  // External systems: a deployed service, a LangChain chain, saved outputs.
  .registerLazy(httpSchema, async () => (await import('./http.js')).createHttpMethod)
  .registerLazy(langchainRunnableSchema, async () => (await import('./langchainRunnable.js')).createLangChainRunnableMethod)
  .registerLazy(outputsSchema, async () => (await import('./outputs.js')).createOutputsMethod);

type Spec = { name: string } & Record<string, unknown>;

function unknown(spec: Spec, path: string): never {
  throw new ConfigError(
    `${path}.name: unknown strategy or method "${spec.name}" (strategies: ${strategies.names().join(', ')}; methods: ${methods.names().join(', ')})`,
  );
}

/**
 * Validates an entry of `strategies:`: a RAG method (`ircot`, `refine` …) or a single-shot
 * prompting strategy (`closed-book`, `rag` …), whose params are checked by its registry.
 */
export function parseMethodSpec(spec: Spec, path: string): unknown {
  if (methods.has(spec.name)) return methods.parse(spec, path);
  if (strategies.has(spec.name)) return strategies.parse(spec, path);
  return unknown(spec, path);
}

/** Builds the method an entry of `strategies:` names; a prompting strategy becomes a single-shot method. */
export async function createMethod(spec: Spec, path: string): Promise<RagMethod> {
  if (methods.has(spec.name)) return methods.create(spec, undefined, path);
  if (strategies.has(spec.name)) {
    const { singleShotMethod } = await import('./singleShot.js');
    return singleShotMethod(await strategies.create(spec, undefined, path));
  }
  return unknown(spec, path);
}
