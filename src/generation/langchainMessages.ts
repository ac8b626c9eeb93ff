import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { EmptyCompletionError } from '../endpoints/generationError.js';
import { contentAsText } from '../prompting/messageContent.js';
import type { ChatMessage, PageImageRef } from '../prompting/types.js';
import { splitReasoning } from './reasoning.js';
import type { ChatTurnOptions, GenerationResult, TokenUsage } from './types.js';

/** Messages to and replies from a LangChain chat model, as hisrag's generators send and read them. */

/** A message's content as LangChain takes it: text, or OpenAI content parts (`text`, `image_url`) in the message's order. */
type LangChainContent = string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];

export function toLangChainMessage(message: ChatMessage, imageUrl?: (image: PageImageRef) => string): BaseMessage {
  let content: LangChainContent;
  if (typeof message.content === 'string') content = message.content;
  else if (!message.content.some((part) => part.type === 'image')) content = contentAsText(message.content);
  else {
    if (!imageUrl) throw new Error('a message with image parts must be prepared for the model before it is sent');
    content = message.content.map((part) => (part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'image_url' as const, image_url: { url: imageUrl(part.image) } }));
  }
  if (message.role === 'system') return new SystemMessage({ content });
  if (message.role === 'assistant') return new AIMessage({ content });
  return new HumanMessage({ content });
}

/** What identifies one message of a conversation for the cache: role, text, tool calls (with ids), tool result id. */
export function conversationEntry(message: BaseMessage): Record<string, unknown> {
  const ai = AIMessage.isInstance(message) ? message : undefined;
  const tool = ToolMessage.isInstance(message) ? message : undefined;
  return {
    role: message.getType(),
    content: contentText(message.content),
    ...(ai?.tool_calls?.length ? { toolCalls: ai.tool_calls.map(({ id, name, args }) => ({ id, name, args })) } : {}),
    ...(tool ? { toolCallId: tool.tool_call_id } : {}),
  };
}

/** The chat model with tools offered; a model that cannot bind tools is refused with its name. */
function bindToolsTo(chat: BaseChatModel, tools: ChatTurnOptions['tools']) {
  if (typeof chat.bindTools !== 'function') throw new Error(`chat model ${chat.getName()} cannot be offered tools`);
  return chat.bindTools(tools);
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

/**
 * A chat model's reply as a generation result: the answer with reasoning split off, tool calls,
 * usage. A reply with nothing at all (no answer, no reasoning, no tool call) is a transport-level
 * fault until proven otherwise (EmptyCompletionError, retried). Live replies and batch output lines
 * go through here alike.
 */
export function resultFromReply(reply: Pick<AIMessage, 'content' | 'additional_kwargs' | 'tool_calls' | 'usage_metadata'>): GenerationResult {
  const raw = contentText(reply.content);
  const reasoningContent = reply.additional_kwargs?.reasoning_content;
  const { text, reasoning } = splitReasoning(raw, typeof reasoningContent === 'string' ? reasoningContent : undefined);
  const toolCalls = (reply.tool_calls ?? []).map(({ id, name, args }) => ({ ...(id ? { id } : {}), name, args: args as Record<string, unknown> }));
  if (raw.trim() === '' && !reasoning && toolCalls.length === 0) throw new EmptyCompletionError();
  const usage: TokenUsage | undefined = reply.usage_metadata
    ? {
        promptTokens: reply.usage_metadata.input_tokens,
        completionTokens: reply.usage_metadata.output_tokens,
        totalTokens: reply.usage_metadata.total_tokens,
      }
    : undefined;
  return { text, raw, ...(reasoning ? { reasoning } : {}), ...(usage ? { usage } : {}), ...(toolCalls.length ? { toolCalls } : {}) };
}

/**
 * One call of the chat model (with `tools` offered, when given), read as a generation result. A
 * signal of its own per request: the client adds listeners to the signal it is given and does not
 * always remove them, so the run-wide signal gets exactly one, removed afterwards.
 */
export async function invokeChat(chat: BaseChatModel, messages: BaseMessage[], outer?: AbortSignal, tools?: ChatTurnOptions['tools']): Promise<GenerationResult> {
  const controller = new AbortController();
  const forward = () => controller.abort(outer!.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  let reply;
  try {
    const model = tools?.length ? bindToolsTo(chat, tools) : chat;
    reply = await model.invoke(messages, { signal: controller.signal });
  } finally {
    outer?.removeEventListener('abort', forward);
  }
  return resultFromReply(reply);
}

/** A conversation message as the trace keeps it: role and text, tool calls and results written out. */
export function recordedMessage(message: BaseMessage): { role: string; content: string } {
  const text = contentText(message.content);
  if (AIMessage.isInstance(message) && message.tool_calls?.length) {
    const calls = message.tool_calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`);
    return { role: 'assistant', content: [text, ...calls].filter(Boolean).join('\n') };
  }
  if (ToolMessage.isInstance(message)) return { role: 'tool', content: text };
  const role = message.getType();
  return { role: role === 'human' ? 'user' : role === 'ai' ? 'assistant' : role, content: text };
}
