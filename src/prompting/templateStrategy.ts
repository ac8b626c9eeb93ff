import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { answerInstructions, type AnswerInstructions } from './answerInstructions.js';
import { formatContextBlock, type ContextEntry } from './contextBlock.js';
import { fitContextBudget } from './contextBudget.js';
import { isGoldChunk, orderContext, type ContextOrdering } from './contextOrder.js';
import { extractFinalAnswer } from './finalAnswer.js';
import { fillTemplate } from './fillTemplate.js';
import type { PromptTemplate } from './templates/promptTemplate.js';
import type { TokenCounter } from './tokenCounter.js';
import type { BuiltPrompt, PromptInput, PromptStrategy, TextChatMessage } from './types.js';

export interface TemplateStrategyOptions {
  name: string;
  template: PromptTemplate;
  instructions?: AnswerInstructions;
  /** Text put before the per-benchmark instructions (the chain-of-thought request in `rag` with persona cot). */
  instructionPrefix?: string;
  /** Chain of thought: the marker after which the final answer starts. */
  finalAnswerMarker?: string;
  /** Retrieval strategies only. */
  retrieval?: {
    budget: number | null;
    counter: TokenCounter;
    ordering: ContextOrdering;
    showPages: boolean;
  };
}

/** What an empty retrieval result looks like in the prompt. */
export const NO_CONTEXT_TEXT = '（未检索到相关资料）';

export function chunkPages(chunk: RetrievedChunk): number[] | undefined {
  const pages = chunk.meta.pages;
  if (Array.isArray(pages) && pages.every((p) => typeof p === 'number')) return pages as number[];
  return typeof chunk.meta.page === 'number' ? [chunk.meta.page] : undefined;
}

export function messagesOf(system: string, user: string): TextChatMessage[] {
  return system.trim() ? [{ role: 'system', content: system }, { role: 'user', content: user }] : [{ role: 'user', content: user }];
}

/**
 * A strategy defined by a template: closed-book, role, prof, cot, and RAG@k (which also fits
 * the retrieved chunks into the context budget, drops the lowest-ranked first, and orders them).
 */
export class TemplateStrategy implements PromptStrategy {
  readonly name: string;
  readonly usesRetrieval: boolean;
  readonly finalAnswer?: (text: string) => string;

  constructor(private readonly options: TemplateStrategyOptions) {
    this.name = options.name;
    this.usesRetrieval = options.retrieval !== undefined;
    const marker = options.finalAnswerMarker;
    if (marker) this.finalAnswer = (text) => extractFinalAnswer(text, marker);
  }

  instructionsFor(item: BenchmarkItem): string {
    return `${this.options.instructionPrefix ?? ''}${answerInstructions(item, this.options.instructions)}`;
  }

  build({ item, context }: PromptInput): BuiltPrompt {
    const { template, retrieval } = this.options;
    const instructions = this.instructionsFor(item);
    if (!retrieval) {
      const user = fillTemplate(template.user, { question: item.question, instructions });
      return { messages: messagesOf(template.system, user), contextIds: [], truncated: 0 };
    }
    const ranked = [...(context ?? [])].sort((a, b) => a.rank - b.rank);
    const toEntry = (chunk: RetrievedChunk): ContextEntry => ({
      title: chunk.title,
      text: chunk.text,
      ...(retrieval.showPages && chunkPages(chunk) ? { pages: chunkPages(chunk) } : {}),
    });
    const fitted = fitContextBudget(ranked, toEntry, (chunk, text) => ({ ...chunk, text }), retrieval.budget, retrieval.counter);
    const ordered = orderContext(fitted.kept, retrieval.ordering, (chunk) => isGoldChunk(item, chunk));
    const block = ordered.length > 0 ? formatContextBlock(ordered.map(toEntry)) : NO_CONTEXT_TEXT;
    const user = fillTemplate(template.user, { question: item.question, context: block, instructions });
    return {
      messages: messagesOf(template.system, user),
      contextIds: ordered.map((chunk) => chunk.id),
      truncated: fitted.dropped,
      contextTokens: fitted.tokens,
      ...(fitted.clipped ? { clipped: true } : {}),
    };
  }
}
