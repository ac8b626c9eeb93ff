import { createRagStrategy } from '../prompting/strategies/rag.js';
import { createClosedBookStrategy } from '../prompting/strategies/noRetrieval.js';
import { resolvePrompts, stepMessages } from './prompts.js';
import { parseDecision } from './replies.js';
import { decidePrompt } from './templates/adaptive.js';
import type { CallBound, MethodOutcome, PlanInput, RagMethod } from './types.js';
import type { AdaptiveParams } from './adaptiveSchema.js';

/**
 * Conditional RAG: the model first judges whether it needs external material for the question
 * (SKR's prompting variant; Adaptive-RAG with the model as its own classifier). No → the
 * closed-book prompt; yes → standard RAG. An unparseable decision falls back to retrieval and is
 * counted (`decisionUnparsed`); the summary reports the share of questions that retrieved.
 */
export async function createAdaptiveMethod(params: AdaptiveParams): Promise<RagMethod> {
  const { prompts: overrides, ...ragParams } = params;
  const prompts = resolvePrompts('adaptive', { decide: decidePrompt }, { decide: overrides.decide });
  const rag = await createRagStrategy(ragParams);
  const closedBook = await createClosedBookStrategy({ ...overrides.closedBook, ...(params.instructions ? { instructions: params.instructions } : {}) });
  return {
    name: 'adaptive',
    usesRetrieval: true,
    calls: { min: 2, max: 2 },
    // Both prompts are known before any call: the decision, then the RAG prompt (the question's passages) or the closed-book one.
    planCalls: ({ item, questionPassages }: PlanInput): CallBound[] => [
      { label: 'decide', always: true, prompts: [{ messages: stepMessages(prompts.decide, { question: item.question }) }] },
      { label: 'answer', always: true, prompts: [{ messages: rag.build({ item, context: questionPassages }).messages }, { messages: closedBook.build({ item, context: null }).messages }] },
    ],
    async run(context): Promise<MethodOutcome> {
      const { item } = context;
      const decision = await context.generate('decide', stepMessages(prompts.decide, { question: item.question }));
      const canAnswer = parseDecision(decision.text);
      const retrieve = canAnswer !== true;
      context.record('judge-retrieval', 'decide', { decision: canAnswer === null ? 'unparsed' : canAnswer ? 'closed-book' : 'retrieve' });
      const passages = retrieve ? await context.retrieve(item.question, 'retrieve') : null;
      const strategy = retrieve ? rag : closedBook;
      const prompt = strategy.build({ item, context: passages });
      const response = await context.generate('answer', prompt.messages, { final: true });
      return {
        answer: strategy.finalAnswer?.(response.text) ?? response.text,
        response,
        prompt: prompt.messages,
        contextIds: prompt.contextIds,
        truncated: prompt.truncated,
        notes: { retrieved: retrieve, decisionUnparsed: canAnswer === null },
      };
    },
  };
}
