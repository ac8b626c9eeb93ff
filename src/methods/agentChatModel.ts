import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import type { GenerationResult, ToolDefinition } from '../generation/types.js';
import type { MethodContext } from './types.js';

/** What the agent's model turns have produced so far (shared by the copies `bindTools` makes). */
export interface AgentTurns {
  count: number;
  /** Tool calls the model asked for, over all turns (the limit refuses those past maxSearches). */
  toolCalls: number;
  /** The last non-empty text the model wrote: its best answer so far when a limit ends the run. */
  lastText: string;
  last?: GenerationResult;
}

/**
 * The condition's generator as a LangChain chat model for `createAgent`: each turn goes through the
 * method context (`chatTurn`), so it is traced, counted and run under hisrag's execution policy
 * (response cache, endpoint concurrency, retries, endpoint health) like any other generation.
 * `bindTools` keeps the tools in OpenAI's format for the request.
 */
export class MethodChatModel extends BaseChatModel {
  static override lc_name(): string {
    return 'HisragMethodChatModel';
  }

  constructor(
    private readonly context: MethodContext,
    readonly turns: AgentTurns,
    private readonly tools: ToolDefinition[] = [],
  ) {
    super({});
  }

  _llmType(): string {
    return 'hisrag-method';
  }

  override bindTools(tools: BindToolsInput[], _kwargs?: Partial<BaseChatModelCallOptions>): MethodChatModel {
    return new MethodChatModel(this.context, this.turns, tools.map((t) => convertToOpenAITool(t) as ToolDefinition));
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const label = `turn[${++this.turns.count}]`;
    const result = await this.context.chatTurn(label, messages, this.tools);
    this.turns.last = result;
    this.turns.toolCalls += result.toolCalls?.length ?? 0;
    if (result.text.trim()) this.turns.lastText = result.text;
    const message = new AIMessage({
      content: result.text,
      tool_calls: (result.toolCalls ?? []).map((call, i) => ({ id: call.id ?? `${label}-${i}`, name: call.name, args: call.args, type: 'tool_call' as const })),
      ...(result.usage?.promptTokens !== undefined && result.usage.completionTokens !== undefined
        ? { usage_metadata: { input_tokens: result.usage.promptTokens, output_tokens: result.usage.completionTokens, total_tokens: result.usage.promptTokens + result.usage.completionTokens } }
        : {}),
    });
    return { generations: [{ message, text: result.text }] };
  }
}
