/**
 * An LCEL chain over a hisrag retriever and a chat model: the shape of a team's own LangChain.js
 * RAG pipeline that `hisrag run` evaluates through the `langchain-runnable` method. The chain
 * returns only the answer string; the method reads the pages it used from its retriever's
 * callbacks. With `model` it calls any OpenAI-compatible endpoint; without, hisrag's offline
 * extractive stand-in answers (as a LangChain chat model), so the demo runs offline.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { DocumentInterface } from '@langchain/core/documents';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import type { ChatResult } from '@langchain/core/outputs';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnableLambda, RunnablePassthrough, RunnableSequence, type Runnable } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';
import { createRetriever, generators } from 'hisrag';

export interface ChainOptions {
  /** A hisrag index; `retriever` says how to search it (`exact` with the index's embedder, `bm25`, `hnsw`). */
  index: string;
  retriever?: string;
  k?: number;
  /** An OpenAI-compatible endpoint: `{ baseURL, model, apiKeyEnv }` (the key by variable name). */
  model?: { baseURL: string; model: string; apiKeyEnv?: string };
  /** The offline stand-in's overlap threshold. */
  minOverlap?: number;
}

type Generator = Awaited<ReturnType<typeof generators.create>>;

/** hisrag's offline extractive stand-in as a LangChain chat model. */
class StandInChatModel extends BaseChatModel {
  constructor(private readonly generator: Generator) {
    super({});
  }

  _llmType(): string {
    return 'hisrag-extractive';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const chat = messages.map((m) => ({ role: m.getType() === 'system' ? ('system' as const) : m.getType() === 'ai' ? ('assistant' as const) : ('user' as const), content: String(m.content) }));
    const { text } = await this.generator.generate(chat);
    return { generations: [{ message: new AIMessage(text), text }] };
  }
}

/** `【资料1】《书名》（第3页）…【资料结束】`: the context format hisrag's prompts (and its stand-in) use. */
function formatDocs(docs: DocumentInterface[]): string {
  if (docs.length === 0) return '（无资料）';
  const entries = docs.map((d, i) => {
    const page = (d.metadata.meta as { page?: number } | undefined)?.page;
    return `【资料${i + 1}】${d.metadata.title ?? ''}${page ? `（第${page}页）` : ''}\n${d.pageContent}`;
  });
  return `${entries.join('\n\n')}\n【资料结束】`;
}

export async function createChain(options: ChainOptions): Promise<Runnable> {
  const retriever = await createRetriever({ name: options.retriever ?? 'exact', index: options.index });
  const k = options.k ?? 3;
  const model = options.model
    ? new ChatOpenAI({
        model: options.model.model,
        temperature: 0,
        apiKey: options.model.apiKeyEnv ? process.env[options.model.apiKeyEnv] : 'no-key',
        configuration: { baseURL: options.model.baseURL },
      })
    : new StandInChatModel(await generators.create({ name: 'extractive', minOverlap: options.minOverlap ?? 1 }, undefined));
  // The search is scoped to the question's book when the input names one (LongHisDoc); the config is
  // passed on so that the caller's callbacks see the retrieval.
  const search = RunnableLambda.from(async (input: { question: string; docId?: string | null }, config) =>
    retriever.withSearch({ k, query: input.docId ? { docId: input.docId } : {} }).invoke(input.question, config),
  );
  const prompt = ChatPromptTemplate.fromMessages([['human', '请依据下列资料回答问题；资料中没有答案时回答“无法回答”。\n\n{context}\n\n【问题】{question}']]);
  return RunnableSequence.from([RunnablePassthrough.assign({ context: search.pipe(formatDocs) }), prompt, model, new StringOutputParser()]);
}
