import { z } from 'zod';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { splitSentences } from '../chunking/sentences.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { answerInstructions, AnswerInstructionsSchema } from '../prompting/answerInstructions.js';
import type { MethodNotes } from '../runFiles/trace.js';
import { PassageParamsShape, type PassageBlock } from './passages.js';
import { promptOverridesSchema, resolvePrompts, stepMessages, type MethodPrompt, type PromptOverride } from './prompts.js';
import type { CallBound, MethodContext, MethodOutcome, RagMethod, SlotBound } from './types.js';

/**
 * Methods whose last step reads passages with the shared answer prompt (HyDE, query rewrite,
 * RAG-Fusion, compression, CRAG, refine) differ in how they obtain the passages, never in how they
 * read them: the read step, its plan, the sentence selection and the entry's setup are written once here.
 */

/** The params of a reader: how passages enter the prompt, and the answer instructions. */
export const ReaderParamsShape = {
  ...PassageParamsShape,
  instructions: AnswerInstructionsSchema.optional().describe('Per-benchmark answer instructions (`{instructions}` in the answer prompt), replacing the built-in ones'),
};
export type ReaderParams = z.infer<z.ZodObject<typeof ReaderParamsShape>>;

/** A reading method's params: its own fields, then the reader's, then prompt overrides of its steps; unknown keys rejected. */
export function readerParamsSchema<Step extends string, Fields extends z.ZodRawShape>(steps: readonly Step[], fields: Fields) {
  return z.object({ ...fields, ...ReaderParamsShape, prompts: promptOverridesSchema(steps) }).strict();
}

/** The plan's bound of the read step: one answer call, always made, over at most `passages` passages (and the prompt's `more` slots). */
export function answerCall(prompt: MethodPrompt, item: BenchmarkItem, passages: number, params: ReaderParams, more: Record<string, SlotBound> = {}): CallBound {
  return { label: 'answer', always: true, prompts: [{ prompt, slots: { context: { passages, params }, ...more, question: item.question, instructions: answerInstructions(item, params.instructions) } }] };
}

/** The read step: the placed passages (and the prompt's `more` slots) in the answer prompt, the scored generation, and the item's outcome. */
export async function readPassages(context: MethodContext, prompt: MethodPrompt, placed: PassageBlock, params: ReaderParams, notes: MethodNotes, more: Record<string, string> = {}): Promise<MethodOutcome> {
  const { item } = context;
  const messages = stepMessages(prompt, { context: placed.block, ...more, question: item.question, instructions: answerInstructions(item, params.instructions) });
  const response = await context.generate('answer', messages, { final: true });
  return { answer: response.text, response, prompt: messages, contextIds: placed.ids, truncated: placed.dropped, notes };
}

/** What a method states: its name and params schema (its *Schema.ts's), its steps' built-in prompts, and the method they make. */
export interface MethodEntry<Params, Step extends string> {
  name: string;
  params: z.ZodType<Params>;
  /** Built-in prompts by step; the config's `prompts` override them, checked at config time. */
  prompts: Record<Step, MethodPrompt>;
  create(params: Params, prompts: Record<Step, MethodPrompt>): Omit<RagMethod, 'name' | 'usesRetrieval'>;
}

/** A retrieving method's factory, as the registry loads it: the name stated once (prompt errors, method), prompts resolved. */
export function methodFactory<Params extends { prompts: Partial<Record<Step, PromptOverride | undefined>> }, Step extends string>(entry: MethodEntry<Params, Step>): (params: Params) => RagMethod {
  return (params) => ({ name: entry.name, usesRetrieval: true, ...entry.create(params, resolvePrompts(entry.name, entry.prompts, params.prompts)) });
}

/**
 * The `keep` sentences of the passages that score best against the question by the retriever's
 * relevance (ties: the earlier), each passage keeping its chosen ones in order under its own title
 * and pages; a passage left with none drops out.
 */
export async function bestSentences(context: MethodContext, passages: RetrievedChunk[], keep: number, label: string): Promise<{ refined: RetrievedChunk[]; sentences: number; kept: number }> {
  const sentences = passages.flatMap((chunk, index) => splitSentences(chunk.text).map((s) => ({ index, text: s.text.trim() })));
  const scores = sentences.length ? await context.relevance(context.item.question, sentences.map((s) => s.text), label) : [];
  const chosen = new Set(
    sentences
      .map((_, order) => ({ order, score: scores[order]! }))
      .sort((a, b) => b.score - a.score || a.order - b.order)
      .slice(0, keep)
      .map((s) => s.order),
  );
  const refined = passages.flatMap((chunk, index) => {
    const mine = sentences.filter((s, order) => s.index === index && chosen.has(order));
    return mine.length ? [{ ...chunk, text: mine.map((s) => s.text).join('') }] : [];
  });
  return { refined, sentences: sentences.length, kept: chosen.size };
}
