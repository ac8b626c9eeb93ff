import { z } from 'zod';
import { fitPrefix } from '../retrieval/tokenBudget.js';
import { CONTEXT_END, formatContextHeader, type ContextEntry } from './contextBlock.js';
import { fillTemplate, type Placeholder } from './fillTemplate.js';
import type { TokenCounter } from '../text/tokenCounter.js';
import { fitContextBudget, type BudgetedEntries } from './contextBudget.js';
import type { ContentPart, PageImageRef } from './types.js';

/**
 * What a page-level prompt shows of each page: its OCR text (`text`, the benchmark's text
 * setting), its image (`image`, the image-input setting), or the image followed by its text
 * (`image+text`, the combination the paper's error analysis points to).
 */
export const PageInputSchema = z.enum(['text', 'image', 'image+text']);
export type PageInput = z.infer<typeof PageInputSchema>;

/** A context entry with the page images it shows (in page order). */
export interface ImageContextEntry extends ContextEntry {
  images: PageImageRef[];
}

/**
 * The context block with images: each entry's header line (`【资料n】《书》（第p页）`), its images,
 * then (image+text) its text, as the text-only block lays entries out, so that the text of the
 * parts (images as placeholders) parses as an ordinary context block.
 */
export function imageContextParts(entries: ImageContextEntry[], withText: boolean): ContentPart[] {
  const parts: ContentPart[] = [];
  entries.forEach((entry, i) => {
    parts.push({ type: 'text', text: `${i > 0 ? '\n\n' : ''}${formatContextHeader(i + 1, entry)}\n` });
    entry.images.forEach((image, j) => {
      if (j > 0) parts.push({ type: 'text', text: '\n' });
      parts.push({ type: 'image', image });
    });
    const text = entry.text.trim();
    if (withText && text) parts.push({ type: 'text', text: `\n${text}` });
  });
  if (entries.length > 0) parts.push({ type: 'text', text: `\n${CONTEXT_END}` });
  return mergeText(parts);
}

/** Adjacent text parts joined: what a reader of the request sees is the same, and requests stay small. */
function mergeText(parts: ContentPart[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (part.type === 'text' && last?.type === 'text') out[out.length - 1] = { type: 'text', text: last.text + part.text };
    else out.push(part);
  }
  return out.filter((part) => part.type !== 'text' || part.text !== '');
}

// A character no template or benchmark text holds: where the context parts go in the filled template.
const CONTEXT_SLOT = '\u0000context\u0000';

/** The user message of a template whose `{context}` is a run of content parts (text and images). */
export function fillTemplateWithParts(template: string, values: Partial<Record<Exclude<Placeholder, 'context'>, string>>, context: ContentPart[]): ContentPart[] {
  const filled = fillTemplate(template, { ...values, context: CONTEXT_SLOT });
  const at = filled.indexOf(CONTEXT_SLOT);
  if (at < 0) return mergeText([{ type: 'text', text: filled }, ...context]);
  const before = filled.slice(0, at);
  const after = filled.slice(at + CONTEXT_SLOT.length);
  return mergeText([{ type: 'text', text: before }, ...context, { type: 'text', text: after }]);
}

/**
 * Page entries cut to the image limit (a model's per-prompt limit, vLLM's `--limit-mm-per-prompt`;
 * later entries first); with `image+text`, their text then cut to the token budget (an image is
 * never cut for text).
 */
export function fitImageEntries<T>(
  items: T[],
  entryOf: (item: T) => ImageContextEntry,
  withText: (item: T, text: string) => T,
  options: { maxImages: number | null; budget: number | null; counter: TokenCounter; showText: boolean },
): BudgetedEntries<T> {
  const { maxImages, budget, counter } = options;
  const shown = maxImages === null ? items : fitPrefix(items, maxImages, (item) => entryOf(item).images.length).kept;
  const fitted = options.showText
    ? fitContextBudget(shown, entryOf, withText, budget, counter)
    : { kept: shown, dropped: 0, tokens: 0, clipped: false };
  return { ...fitted, dropped: items.length - shown.length + fitted.dropped };
}
