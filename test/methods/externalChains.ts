import { Document } from '@langchain/core/documents';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import type { ChatResult } from '@langchain/core/outputs';
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';

/** Runnables for the langchain-runnable tests: each answers from the question alone, deterministically. */

/** Returns `{ answer, context: Document[] }`: the contexts come from the output. */
export const withContexts = RunnableLambda.from(async (input: { question: string; docId: string | null }) => ({
  answer: `答：${input.question.slice(0, 4)}`,
  context: [new Document({ pageContent: '第2页的文字', id: `${input.docId}-p2`, metadata: { page: 2, doc_id: input.docId } })],
}));

/** A chat model that echoes and reports its token usage, as a real endpoint would. */
class EchoModel extends BaseChatModel {
  _llmType(): string {
    return 'echo';
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const text = `回声：${String(messages.at(-1)!.content).slice(0, 6)}`;
    const message = new AIMessage({ content: text, usage_metadata: { input_tokens: 11, output_tokens: 3, total_tokens: 14 } });
    return { generations: [{ message, text }] };
  }
}

/** question → model → string: no contexts, usage from the model's callbacks. */
export const withUsage = RunnableSequence.from([RunnableLambda.from((input: { question: string }) => input.question), new EchoModel({}), new StringOutputParser()]);

let calls = 0;
/** Fails every other invocation with a 429 (as a model endpoint inside a chain would), then answers. */
export const flaky = RunnableLambda.from(async (input: { question: string }) => {
  calls++;
  if (calls % 2 === 1) throw Object.assign(new Error('429 Rate limit reached'), { status: 429 });
  return `答：${input.question.slice(0, 4)}`;
});

/** A factory: the config's `options` build the Runnable. */
export function createFixed(options: { reply: string }) {
  return RunnableLambda.from(async () => options.reply);
}

export const notARunnable = { invoke: 'no' };
