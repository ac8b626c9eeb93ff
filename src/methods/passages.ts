import { z } from 'zod';
import { formatContextBlock, type ContextEntry } from '../prompting/contextBlock.js';
import { fitContextBudget } from '../prompting/contextBudget.js';
import { chunkPages, NO_CONTEXT_TEXT } from '../prompting/templateStrategy.js';
import { tokenCounters } from '../text/tokenCounter.js';
import type { RetrievedChunk } from '../retrieval/types.js';

/** How passages enter a method's prompts: the same budget, counter and page display as `rag`. */
export const PassageParamsShape = {
  contextBudget: z.number().int().positive().nullable().default(60_000).describe('Tokens the passages of one prompt may take (null: no limit); over budget, the last passages are dropped'),
  tokenCounter: z.enum(Object.keys(tokenCounters) as [keyof typeof tokenCounters]).default('cjk-estimate').describe('How `contextBudget` is counted: `cjk-estimate` (a CJK character is a token, other text 4 characters a token) or `chars` (characters)'),
  showPages: z.boolean().default(true).describe('Show page numbers (`（第12页）`) for chunks that carry them'),
};
export type PassageParams = z.infer<z.ZodObject<typeof PassageParamsShape>>;

export interface PassageBlock {
  /** The `【资料N】…【资料结束】` block, or the no-context text. */
  block: string;
  /** Chunk ids placed, in prompt order. */
  ids: string[];
  /** Passages the budget dropped. */
  dropped: number;
  tokens: number;
}

/** Passages in the given order, fitted to the budget, as one context block. */
export function passageBlock(chunks: RetrievedChunk[], params: PassageParams): PassageBlock {
  const toEntry = (chunk: RetrievedChunk): ContextEntry => {
    const pages = params.showPages ? chunkPages(chunk) : undefined;
    return { title: chunk.title, text: chunk.text, ...(pages ? { pages } : {}) };
  };
  const fitted = fitContextBudget(chunks, toEntry, (chunk, text) => ({ ...chunk, text }), params.contextBudget, tokenCounters[params.tokenCounter]);
  return {
    block: fitted.kept.length ? formatContextBlock(fitted.kept.map(toEntry)) : NO_CONTEXT_TEXT,
    ids: fitted.kept.map((c) => c.id),
    dropped: fitted.dropped,
    tokens: fitted.tokens,
  };
}

/** A block of texts that are not retrieved chunks (a condensed context): one entry, titled. */
export function textBlock(title: string, text: string): string {
  return text.trim() ? formatContextBlock([{ title, text }]) : NO_CONTEXT_TEXT;
}
