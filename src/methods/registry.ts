import { ConfigError } from '../errors.js';
import { Registry } from '../registry.js';
import { strategies } from '../prompting/registry.js';
import { adaptiveMethod } from './adaptive.js';
import { agentMethod } from './agent.js';
import { compressMethod } from './compress.js';
import { cragMethod } from './crag.js';
import { hydeMethod } from './hyde.js';
import { httpMethod } from './http.js';
import { flareMethod } from './flare.js';
import { ircotMethod } from './ircot.js';
import { iterRetGenMethod } from './iterRetGen.js';
import { langchainRunnableMethod } from './langchainRunnable.js';
import { outputsMethod } from './outputs.js';
import { queryRewriteMethod } from './queryRewrite.js';
import { ragFusionMethod } from './ragFusion.js';
import { refineMethod } from './refine.js';
import { searcherMethod } from './searcher.js';
import { searchO1Method } from './searchO1.js';
import { selfAskMethod } from './selfAsk.js';
import { singleShotMethod } from './singleShot.js';
import { standardMethod } from './standard.js';
import { sureMethod } from './sure.js';
import type { RagMethod } from './types.js';

/** RAG methods by name; each spec is `{ name, ...params }` in an experiment's `strategies:` list. */
export const methods = new Registry<RagMethod, void>('method');

methods
  .register(standardMethod)
  .register(refineMethod)
  .register(adaptiveMethod)
  .register(iterRetGenMethod)
  .register(ircotMethod)
  .register(selfAskMethod)
  .register(sureMethod)
  // Query-side methods, corrective retrieval, context compression.
  .register(hydeMethod)
  .register(queryRewriteMethod)
  .register(ragFusionMethod)
  .register(cragMethod)
  .register(compressMethod)
  .register(agentMethod)
  // Reasoning with search, and active retrieval (issue 34).
  .register(searchO1Method)
  .register(searcherMethod)
  .register(flareMethod)
  // External systems: a deployed service, a LangChain chain, saved outputs.
  .register(httpMethod)
  .register(langchainRunnableMethod)
  .register(outputsMethod);

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
  if (strategies.has(spec.name)) return singleShotMethod(await strategies.create(spec, undefined, path));
  return unknown(spec, path);
}
