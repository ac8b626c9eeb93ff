import { HumanMessage } from '@langchain/core/messages';
import { createAgent, tool, toolCallLimitMiddleware, type AnyAgentMiddleware } from 'langchain';
import { z } from 'zod';
import { answerInstructions } from '../prompting/answerInstructions.js';
import { formatContextBlock } from '../prompting/contextBlock.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { MethodChatModel, type AgentTurns } from './agentChatModel.js';
import { recordedMessage } from '../generation/langchainMessages.js';
import { stepMessages } from './prompts.js';
import { methodFactory } from './reader.js';
import { MethodStepError } from './stepError.js';
import { agentSystemPrompt, NOTHING_FOUND, SEARCH_FAILED, SEARCH_QUERY_DESCRIPTION, SEARCH_TOOL_DESCRIPTION } from './templates/agent.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { agentSchema } from './agentSchema.js';

/** What LangChain's toolCallLimitMiddleware answers a search past maxSearches (its tool message). */
const TOOL_CALL_LIMIT_REPLY = "Tool call limit exceeded. Do not call 'search' again.";


/** A search result as the model reads it: numbered passages with id, title and text. */
function searchResultText(passages: RetrievedChunk[]): string {
  if (passages.length === 0) return NOTHING_FOUND;
  return formatContextBlock(passages.map((p) => ({ title: `${p.title}（编号 ${p.id}）`, text: p.text })));
}

const isRecursionLimit = (error: unknown) => error instanceof Error && (error.name === 'GraphRecursionError' || (error as { lc_error_code?: string }).lc_error_code === 'GRAPH_RECURSION_LIMIT');

/**
 * Agentic search: the model decides when and what to retrieve. A tool-calling agent made with
 * LangChain's own runtime (`createAgent` from `langchain`) over the condition's generator, with
 * one tool, `search(query)`, backed by the condition's retriever (k passages a call). The number
 * of searches is capped by LangChain's `toolCallLimitMiddleware` (calls past `maxSearches` get a
 * tool message saying so, and the model answers), the whole run by LangGraph's recursion limit
 * (`maxSteps`), past which the best answer so far counts — or an empty one, counted as such. A
 * search that fails is given back to the model as a tool error and counted; a model turn that
 * fails after the endpoint's retries fails the item. This is ReAct-style search as FlashRAG's
 * reasoning pipelines do it, without their RL-tuned checkpoints: any model with tool calling.
 */
export const createAgentMethod = methodFactory({
  ...agentSchema,
  prompts: { agent: agentSystemPrompt },
  create(params, prompts) {
    return {
      // LangGraph counts model turns and tool rounds against maxSteps together.
      calls: { min: 1, max: params.maxSteps },
      // Turn t re-reads the question and every earlier turn with its tool replies.
      planCalls: ({ item }: PlanInput): CallBound[] => {
        const fixed = stepMessages(prompts.agent, { question: item.question, instructions: answerInstructions(item, params.instructions) });
        const otherReplies = [TOOL_CALL_LIMIT_REPLY, NOTHING_FOUND];
        return Array.from({ length: params.maxSteps }, (_, i) => ({
          label: `turn[${i + 1}]`,
          always: i === 0,
          prompts: [i === 0 ? { messages: fixed } : { conversation: { fixed, turns: i, callText: 'search()', searches: params.maxSearches, otherReplies } }],
        }));
      },
      needsToolCalling: true,
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const turns: AgentTurns = { count: 0, toolCalls: 0, lastText: '' };
        let searches = 0;
        let failedSearches = 0;
        const search = tool(
          async ({ query }: { query: string }) => {
            searches++;
            try {
              return searchResultText(await context.retrieve(query, `search[${searches}]`));
            } catch (error) {
              // The step is in the trace with its error; the model is told and may try again.
              if (!(error instanceof MethodStepError)) throw error;
              failedSearches++;
              return `${SEARCH_FAILED}：${(error.cause as Error | undefined)?.message ?? error.message}`;
            }
          },
          { name: 'search', description: SEARCH_TOOL_DESCRIPTION, schema: z.object({ query: z.string().describe(SEARCH_QUERY_DESCRIPTION) }) },
        );
        const first = stepMessages(prompts.agent, { question: item.question, instructions: answerInstructions(item, params.instructions) });
        const [system, user] = first.length === 2 ? [first[0]!.content, first[1]!.content] : ['', first[0]!.content];
        const agent = createAgent({
          model: new MethodChatModel(context, turns),
          tools: [search],
          ...(system ? { systemPrompt: system } : {}),
          // The cast bridges the middleware's state type, declared against langchain's own zod typings.
          middleware: [toolCallLimitMiddleware({ toolName: 'search', runLimit: params.maxSearches, exitBehavior: 'continue' }) as unknown as AnyAgentMiddleware],
        });
        let answer: string;
        let reachedLimit = false;
        let conversation: { role: string; content: string }[] = [];
        try {
          const state = await agent.invoke({ messages: [new HumanMessage(user)] }, { recursionLimit: params.maxSteps, ...(context.signal ? { signal: context.signal } : {}) });
          const messages = state.messages;
          conversation = messages.map(recordedMessage);
          // Ending on a turn that still asks for searches means the search limit ended the run.
          reachedLimit = (turns.last?.toolCalls?.length ?? 0) > 0;
          answer = reachedLimit ? turns.lastText : (turns.last?.text ?? '');
        } catch (error) {
          if (!isRecursionLimit(error)) throw error;
          // Out of steps: the best answer so far, or an empty one (scored and counted as empty).
          reachedLimit = true;
          answer = turns.lastText;
        }
        const last = turns.last ?? { text: '', raw: '' };
        return {
          answer,
          response: { ...last, text: answer, raw: last.raw || answer },
          prompt: conversation.length ? [...(system ? [{ role: 'system', content: system }] : []), ...conversation] : first,
          contextIds: [],
          truncated: 0,
          // Searches past maxSearches never reach the tool: the limit answers them.
          notes: { searches, refusedSearches: Math.max(0, turns.toolCalls - searches), failedSearches, reachedLimit, turns: turns.count },
        };
      },
    };
  },
});
