import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { answerInstructions, type AnswerInstructions } from './answerInstructions.js';
import { formatContextBlock, type ContextEntry } from './contextBlock.js';
import { builtPrompt, fitContextBudget } from './contextBudget.js';
import { chunkPages, isGoldChunk, orderContext, type ContextOrdering } from './contextOrder.js';
import { extractFinalAnswer } from './finalAnswer.js';
import { fillTemplate } from './fillTemplate.js';
import type { PromptTemplate } from './templates/promptTemplate.js';
import type { TokenCounter } from '../text/tokenCounter.js';
import { fillTemplateWithParts, fitImageEntries, imageContextParts, type PageInput } from './imageContext.js';
import { PageImageLookup } from './pageImageLookup.js';
import type { BuiltPrompt, ChatMessage, ContentPart, PageImageRef, PromptInput, PromptStrategy } from './types.js';

interface Retrieval {
  budget: number | null;
  counter: TokenCounter;
  ordering: ContextOrdering;
  showPages: boolean;
  /** What each retrieved page shows: its text (default), its page image(s), or both (LongHisDoc pages). */
  input?: PageInput;
  imageDir?: string;
  /** Most page images in one prompt; the lowest-ranked passages are dropped first. Null: no limit. */
  maxImages?: number | null;
}

export interface TemplateStrategyOptions {
  name: string;
  template: PromptTemplate;
  instructions?: AnswerInstructions;
  /** Text put before the per-benchmark instructions (the chain-of-thought request in `rag` with persona cot). */
  instructionPrefix?: string;
  /** Chain of thought: the marker after which the final answer starts. */
  finalAnswerMarker?: string;
  /** Retrieval strategies only. */
  retrieval?: Retrieval;
  /** Depths when the config gives none (page retrieval: 1, 3, 5, 10). */
  defaultDepths?: readonly number[];
}

/** What an empty retrieval result looks like in the prompt. */
export const NO_CONTEXT_TEXT = '（未检索到相关资料）';

export { chunkPages } from './contextOrder.js';

/** System message (when not empty) and the user message (text, or text and images). */
export function messagesOf<C extends string | ContentPart[]>(system: string, user: C): (ChatMessage & { content: string | C })[] {
  const message = { role: 'user' as const, content: user };
  return system.trim() ? [{ role: 'system', content: system }, message] : [message];
}

/** A strategy defined by a template: closed-book, role, prof, cot, and RAG@k (context fitted to the budget). */
export class TemplateStrategy implements PromptStrategy {
  readonly name: string;
  readonly usesRetrieval: boolean;
  readonly finalAnswer?: (text: string) => string;
  readonly defaultDepths?: readonly number[];
  private readonly images?: PageImageLookup;

  constructor(private readonly options: TemplateStrategyOptions) {
    this.name = options.name;
    this.usesRetrieval = options.retrieval !== undefined;
    if (options.defaultDepths) this.defaultDepths = options.defaultDepths;
    if ((options.retrieval?.input ?? 'text') !== 'text') this.images = new PageImageLookup(options.name, options.retrieval!.imageDir);
    const marker = options.finalAnswerMarker;
    if (marker) this.finalAnswer = (text) => extractFinalAnswer(text, marker);
  }

  async prepare(items: BenchmarkItem[]): Promise<void> {
    await this.images?.prepare(items);
  }

  /** The page images of a retrieved passage (its page, or every page of a window), in page order. */
  private imagesOf(item: BenchmarkItem, chunk: RetrievedChunk): PageImageRef[] {
    return (chunkPages(chunk) ?? []).flatMap((page) => {
      const image = this.images!.image(item, chunk.docId, page);
      return image ? [image] : [];
    });
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
    if ((retrieval.input ?? 'text') !== 'text') return this.buildWithImages(item, ranked, instructions, retrieval);
    const toEntry = (chunk: RetrievedChunk): ContextEntry => ({
      title: chunk.title,
      text: chunk.text,
      ...(retrieval.showPages && chunkPages(chunk) ? { pages: chunkPages(chunk) } : {}),
    });
    const fitted = fitContextBudget(ranked, toEntry, (chunk, text) => ({ ...chunk, text }), retrieval.budget, retrieval.counter);
    const ordered = orderContext(fitted.kept, retrieval.ordering, (chunk) => isGoldChunk(item, chunk));
    const block = ordered.length > 0 ? formatContextBlock(ordered.map(toEntry)) : NO_CONTEXT_TEXT;
    const user = fillTemplate(template.user, { question: item.question, context: block, instructions });
    return builtPrompt(messagesOf(template.system, user), ordered.map((chunk) => chunk.id), fitted);
  }

  /** Retrieved pages shown as images (and, with `image+text`, each followed by its text). */
  private buildWithImages(item: BenchmarkItem, ranked: RetrievedChunk[], instructions: string, retrieval: Retrieval): BuiltPrompt {
    const showText = retrieval.input === 'image+text';
    const entries = ranked.map((chunk) => ({
      chunk,
      entry: { title: chunk.title, text: chunk.text, images: this.imagesOf(item, chunk), ...(chunkPages(chunk) ? { pages: chunkPages(chunk) } : {}) },
    }));
    const fitted = fitImageEntries(entries, (e) => e.entry, (e, text) => ({ ...e, entry: { ...e.entry, text } }), {
      maxImages: retrieval.maxImages ?? null,
      budget: retrieval.budget,
      counter: retrieval.counter,
      showText,
    });
    const ordered = orderContext(fitted.kept.map((e) => ({ ...e.chunk, entry: e.entry })), retrieval.ordering, (chunk) => isGoldChunk(item, chunk));
    const parts = ordered.length > 0 ? imageContextParts(ordered.map((c) => c.entry), showText) : [{ type: 'text' as const, text: NO_CONTEXT_TEXT }];
    const user = fillTemplateWithParts(this.options.template.user, { question: item.question, instructions }, parts);
    return builtPrompt(messagesOf(this.options.template.system, user), ordered.map((chunk) => chunk.id), fitted, showText);
  }
}
