import { resolve } from 'node:path';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { DocumentInterface } from '@langchain/core/documents';
import { isBaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { Runnable } from '@langchain/core/runnables';
import { ConfigError } from '../errors.js';
import { contentText } from '../generation/langchainMessages.js';
import { EmptyCompletionError, MalformedResponseError } from '../endpoints/generationError.js';
import { responseCacheKey } from '../generation/responseCache.js';
import { describeProblems, mapReply, type MappedReply, type ResponseMapping } from './external/mapping.js';
import { EXTERNAL_CALLS, externalCall } from './external/outcome.js';
import { CallPolicy } from './external/policy.js';
import { renderTemplate } from './external/template.js';
import type { MethodContext, MethodOutcome, RagMethod } from './types.js';
import { importUserModule } from '../io/importModule.js';
import type { LangChainRunnableParams } from './langchainRunnableSchema.js';

/** Collects what one invocation's retrievers returned and what its models reported spending. */
class ContextCollector extends BaseCallbackHandler {
  name = 'hisrag-external-contexts';
  // Awaited, so every document is in before invoke returns (LangChain may run handlers in the background).
  override awaitHandlers = true;
  retrievals = 0;
  documents: DocumentInterface[] = [];
  promptTokens = 0;
  completionTokens = 0;
  reported = false;

  override handleRetrieverEnd(documents: DocumentInterface[]): void {
    this.retrievals++;
    this.documents.push(...documents);
  }

  override handleLLMEnd(output: LLMResult): void {
    const usage = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number } | undefined;
    if (usage && typeof usage.promptTokens === 'number') {
      this.reported = true;
      this.promptTokens += usage.promptTokens;
      this.completionTokens += usage.completionTokens ?? 0;
      return;
    }
    for (const generation of output.generations.flat()) {
      const meta = (generation as { message?: { usage_metadata?: { input_tokens: number; output_tokens: number } } }).message?.usage_metadata;
      if (!meta) continue;
      this.reported = true;
      this.promptTokens += meta.input_tokens;
      this.completionTokens += meta.output_tokens;
    }
  }
}

/** A chain's output as plain JSON: messages become their text, Documents `{ pageContent, metadata, id }`. */
function plain(value: unknown): unknown {
  if (isBaseMessage(value)) return contentText(value.content);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    const doc = value as Partial<DocumentInterface>;
    if (typeof doc.pageContent === 'string') return { pageContent: doc.pageContent, metadata: plain(doc.metadata ?? {}), ...(doc.id ? { id: doc.id } : {}) };
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

const inOutput = (path: string) => (path === '$' ? 'output' : `output.${path}`);

/** The mapping over `{ output, retrieved, usage }`, the record one invocation is kept as. */
function wrappedMapping(mapping: ResponseMapping, output: unknown): ResponseMapping {
  const usage = (key: 'promptTokens' | 'completionTokens' | 'totalTokens' | 'cost', fallback: string) => (mapping[key] ? inOutput(mapping[key]!) : fallback);
  return {
    ...mapping,
    answer: mapping.answer ? inOutput(mapping.answer) : typeof output === 'string' ? 'output' : 'output.answer',
    contexts: mapping.contexts ? inOutput(mapping.contexts) : 'retrieved',
    promptTokens: usage('promptTokens', 'usage.promptTokens'),
    completionTokens: usage('completionTokens', 'usage.completionTokens'),
    totalTokens: usage('totalTokens', 'usage.totalTokens'),
    cost: usage('cost', 'usage.cost'),
  };
}

/**
 * A LangChain.js Runnable (an LCEL chain over any retriever and model) as a method: invoked once
 * per question with the item's fields; its answer is scored, and the Documents it used (from its
 * output, or from its retrievers' callbacks) are the record's passages. Invocations run under the
 * policy of model calls: concurrency, retries (an error inside the chain — its model's 429 or 500
 * — is classified like a model's), the circuit breaker, and the response cache when configured.
 */
export function createLangChainRunnableMethod(params: LangChainRunnableParams): RagMethod {
  const endpoint = `runnable:${resolve(params.module)}#${params.export}`;
  const policy = new CallPolicy(endpoint, params);
  let runnable: Runnable | undefined;

  const parse = (raw: string, context: MethodContext): { reply: MappedReply; reportsContexts: boolean } => {
    const record = JSON.parse(raw) as { output: unknown; retrieved: unknown[]; retrievals: number; usage?: unknown };
    const { reply, problems } = mapReply(record, wrappedMapping(params.response, record.output), context.item, { defaultAnswer: 'output', idPrefix: 'runnable' });
    if (!reply) throw new MalformedResponseError(`the chain's output does not fit the response mapping: ${describeProblems('output', problems).join('; ')}`);
    if (reply.answer.trim() === '') throw new EmptyCompletionError();
    return { reply, reportsContexts: params.response.contexts !== undefined || record.retrievals > 0 };
  };

  return {
    name: 'langchain-runnable',
    usesRetrieval: false,
    calls: EXTERNAL_CALLS,
    async prepare() {
      const loaded = await importUserModule(params.module);
      let found = loaded[params.export];
      if (typeof found === 'function' && !Runnable.isRunnable(found)) found = await (found as (o: unknown) => unknown)(params.options);
      if (!Runnable.isRunnable(found)) {
        throw new ConfigError(`module: ${params.module} export "${params.export}" is not a LangChain Runnable (nor a function returning one)`);
      }
      runnable = found as Runnable;
    },
    async run(context: MethodContext): Promise<MethodOutcome> {
      if (!runnable) throw new Error('langchain-runnable: prepare() was not called');
      const chain = runnable;
      const input = renderTemplate(params.input, context.item);
      const key = params.cache ? responseCacheKey({ model: endpoint, messages: input, params: params.options }) : undefined;
      const attempt = async (signal?: AbortSignal) => {
        const collector = new ContextCollector();
        const timeout = AbortSignal.timeout(params.timeoutMs);
        const output = plain(await chain.invoke(input, { callbacks: [collector], signal: signal ? AbortSignal.any([signal, timeout]) : timeout }));
        const raw = JSON.stringify({
          output,
          retrieved: collector.documents.map(plain),
          retrievals: collector.retrievals,
          ...(collector.reported ? { usage: { promptTokens: collector.promptTokens, completionTokens: collector.completionTokens } } : {}),
        });
        return { raw, value: parse(raw, context) };
      };
      return externalCall(context, policy, {
        method: 'langchain-runnable',
        step: { kind: 'runnable', label: 'invoke', detail: { module: params.module, export: params.export }, request: `${params.module}#${params.export}` },
        key,
        attempt,
        fromCache: (raw) => parse(raw, context),
        prompt: [{ role: 'user', content: JSON.stringify(input) }],
        reply: (value) => value ?? { reply: { answer: '', contexts: [] }, reportsContexts: params.response.contexts !== undefined },
      });
    },
  };
}
