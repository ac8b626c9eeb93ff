import { z } from 'zod';
import type { RegistryEntry } from '../registry.js';
import type { ChatMessage } from '../prompting/types.js';
import { extractQuestion, parseContextBlock } from '../prompting/contextBlock.js';
import { toSimplified } from '../text/simplify.js';
import type { GenerationResult, Generator } from './types.js';

export const ExtractiveParamsSchema = z
  .object({
    /** Length budget of the answer in characters. */
    maxChars: z.number().int().positive().default(200),
    /** A sentence must share at least this many distinct character bigrams with the question. */
    minOverlap: z.number().int().positive().default(2),
    /** Compare in simplified Chinese (OCR pages are often traditional). */
    simplify: z.boolean().default(true),
  })
  .strict();
export type ExtractiveParams = z.infer<typeof ExtractiveParamsSchema>;

export const CANNOT_ANSWER_ZH = '无法回答';
export const CANNOT_ANSWER_EN = 'I cannot answer';

const SENTENCE_END = /(?<=[。！？；!?;\n])/;
const NOT_WORD = /[\s\p{P}\p{S}]/u;

/** Distinct character bigrams of the text, ignoring whitespace, punctuation and symbols. */
export function characterBigrams(text: string): Set<string> {
  const chars = [...text].filter((c) => !NOT_WORD.test(c));
  const grams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i]! + chars[i + 1]!);
  return grams;
}

const OPTION_LINE = /^\s*([A-H])[.．、:：]\s*(.+)$/gm;

/** Options of a multiple-choice question written one per line (`A. …`). */
export function parseOptions(question: string): { letter: string; text: string }[] {
  return [...question.matchAll(OPTION_LINE)].map((m) => ({ letter: m[1]!, text: m[2]!.trim() }));
}

interface Candidate {
  sentence: string;
  overlap: number;
  order: number;
}

/**
 * The offline baseline: answers with the retrieved sentences that share the most character
 * bigrams with the question, up to a length budget. It sees only the prompt messages, so it
 * reads the context block that the RAG templates write (`【资料N】…`). Without context (closed
 * book) or without any overlapping sentence it declines, as an honest model would.
 */
export class ExtractiveGenerator implements Generator {
  readonly name = 'extractive';
  readonly model = 'extractive';

  constructor(private readonly params: ExtractiveParams) {}

  answer(messages: ChatMessage[]): string {
    const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const question = extractQuestion(user);
    const decline = /[\u4e00-\u9fff]/.test(question) || question === '' ? CANNOT_ANSWER_ZH : CANNOT_ANSWER_EN;
    const normalise = (text: string) => (this.params.simplify ? toSimplified(text) : text);
    const entries = parseContextBlock(user);
    if (entries.length === 0) return decline;

    const options = parseOptions(question);
    if (options.length >= 2 && user.includes('\\boxed')) return this.chooseOptions(options, entries.map((e) => normalise(e.text)));

    const questionGrams = characterBigrams(normalise(question));
    const candidates: Candidate[] = [];
    let order = 0;
    for (const entry of entries) {
      for (const piece of entry.text.split(SENTENCE_END)) {
        const sentence = piece.trim();
        if (!sentence) continue;
        let overlap = 0;
        for (const gram of characterBigrams(normalise(sentence))) if (questionGrams.has(gram)) overlap++;
        candidates.push({ sentence, overlap, order: order++ });
      }
    }
    const ranked = candidates
      .filter((c) => c.overlap >= this.params.minOverlap)
      .sort((a, b) => b.overlap - a.overlap || a.order - b.order);
    const chosen: string[] = [];
    let length = 0;
    for (const candidate of ranked) {
      if (chosen.includes(candidate.sentence)) continue;
      const room = this.params.maxChars - length;
      if (room <= 0) break;
      // The best sentence is cut to the budget rather than skipped; later ones must fit whole.
      if (candidate.sentence.length > room) {
        if (chosen.length === 0) {
          chosen.push(candidate.sentence.slice(0, room));
          length += room;
        }
        continue;
      }
      chosen.push(candidate.sentence);
      length += candidate.sentence.length;
    }
    return chosen.length > 0 ? chosen.join('') : decline;
  }

  /**
   * Multiple choice: an option is chosen when nearly all (80%) of its bigrams occur in one context sentence
   * (the best option always is), answered as `\boxed{letters}` as the MCQ instructions ask.
   */
  private chooseOptions(options: { letter: string; text: string }[], contexts: string[]): string {
    const sentences = contexts.flatMap((text) => text.split(SENTENCE_END)).map((s) => characterBigrams(s));
    const support = options.map(({ letter, text }) => {
      const grams = characterBigrams(this.params.simplify ? toSimplified(text) : text);
      let best = 0;
      for (const sentence of sentences) {
        let shared = 0;
        for (const gram of grams) if (sentence.has(gram)) shared++;
        best = Math.max(best, grams.size ? shared / grams.size : 0);
      }
      return { letter, best };
    });
    const top = Math.max(...support.map((s) => s.best));
    const chosen = support.filter((s) => s.best >= 0.8 || s.best === top).map((s) => s.letter);
    return `\\boxed{${chosen.join('')}}`;
  }

  async generate(messages: ChatMessage[]): Promise<GenerationResult> {
    const text = this.answer(messages);
    return { text, raw: text };
  }

  describe(): Record<string, unknown> {
    return { name: this.name, model: this.model, ...this.params };
  }
}

export const extractiveGenerator: RegistryEntry<ExtractiveParams, Generator, void> = {
  name: 'extractive',
  description: 'Offline baseline: the context sentences that overlap the question most (character bigrams).',
  params: ExtractiveParamsSchema,
  create: (params) => new ExtractiveGenerator(params),
};
