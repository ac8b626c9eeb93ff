import { passageBlock } from './passages.js';
import { stepMessages } from './prompts.js';
import { answerCall, methodFactory, readPassages } from './reader.js';
import { answerPrompt } from './templates/answer.js';
import { rewritePrompt } from './templates/queryRewrite.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { queryRewriteSchema } from './queryRewriteSchema.js';

/** The search query of a rewriter's reply: its first non-empty line, a `检索式：` label or list number dropped. */
export function parseQuery(text: string): string {
  const line = text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  return (line ?? '').replace(/^(?:检索式|查询|检索查询|query)\s*[:：]\s*/i, '').replace(/^[（(]?\d+[)）.、]\s*/, '').trim();
}

/**
 * Rewrite–retrieve–read (Ma et al. 2023, "Query Rewriting for Retrieval-Augmented Large Language
 * Models"), with the LLM as the rewriter (the paper's first setting, before a small rewriter is
 * trained): the model rewrites the question into a search query, the retriever searches with it,
 * and the reader answers the original question from the k passages found. 1 retrieval, 2 generations.
 */
export const createQueryRewriteMethod = methodFactory({
  ...queryRewriteSchema,
  prompts: { rewrite: rewritePrompt, answer: answerPrompt },
  create(params, prompts) {
    return {
      calls: { min: 2, max: 2 },
      planCalls: ({ item, k }: PlanInput): CallBound[] => [
        { label: 'rewrite', always: true, prompts: [{ messages: stepMessages(prompts.rewrite, { question: item.question }) }] },
        answerCall(prompts.answer, item, k, params),
      ],
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const reply = await context.generate('rewrite', stepMessages(prompts.rewrite, { question: item.question }));
        // A reply with no query line (only reasoning) searches with the question, and the notes count it.
        const rewritten = parseQuery(reply.text);
        const passages = await context.retrieve(rewritten || item.question, 'retrieve');
        return readPassages(context, prompts.answer, passageBlock(passages, params), params, { rewritten: Boolean(rewritten), queryChars: rewritten.length });
      },
    };
  },
});
