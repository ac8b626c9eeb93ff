import type { ChatMessage } from '../prompting/types.js';
import { messageText, promptImages } from '../prompting/messageContent.js';
import { imagesRefused } from './imageTokens.js';
import { extractQuestion, parseContextBlock } from '../prompting/contextBlock.js';
import { outputKindOf } from '../prompting/taskFormat.js';
import { toSimplified } from '../text/simplify.js';
import { answerStep, type StandInTools } from './extractiveSteps.js';
import { characterBigrams, parseOptions, pickWithin, rankSentences, sharedBigrams, splitIntoSentences } from './lexicalOverlap.js';
import type { GenerateOptions, GenerationResult, Generator, GeneratorDescription } from './types.js';
import { createHash } from 'node:crypto';
import type { ExtractiveParams } from './extractiveSchema.js';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export { ExtractiveParamsSchema, type ExtractiveParams } from './extractiveSchema.js';

export const CANNOT_ANSWER_ZH = '无法回答';
export const CANNOT_ANSWER_EN = 'I cannot answer';

/** The text of a prompt's last user message: what the stand-ins read. */
export function lastUserText(messages: ChatMessage[]): string {
  const found = [...messages].reverse().find((m) => m.role === 'user');
  return found ? messageText(found) : '';
}


/**
 * The offline baseline: answers with the retrieved sentences that share the most character
 * bigrams with the question, up to a length budget. It sees only the prompt messages, so it
 * reads the context block that the RAG templates write (`【资料N】…`). Without context (closed
 * book) or without any overlapping sentence it declines, as an honest model would. A RAG
 * method's intermediate prompt says what it wants (`【输出】…`, `prompting/taskFormat.ts`), and
 * each kind is answered by a general lexical rule — condense, decide, list, choose, reason one
 * step, ask a follow-up — never by recognising a method or a question.
 */
export class ExtractiveGenerator implements Generator {
  readonly name = 'extractive';
  readonly model = 'extractive';

  /**
   * The sampling noise of the answer being built (temperature > 0), set by `generate` for its
   * synchronous `answer` call only, so every rule that ranks sentences draws from the same seeded stream.
   */
  private noise: (() => number) | undefined;

  answer(messages: ChatMessage[]): string {
    const user = lastUserText(messages);
    const kind = outputKindOf(user);
    return kind ? answerStep(kind, user, this.tools) : this.tools.answer(user);
  }

  /** The rules every kind of prompt is answered by (see `extractiveSteps.ts`). */
  private readonly tools: StandInTools;

  constructor(private readonly params: ExtractiveParams) {
    this.tools = {
      params,
      normalise: (text) => (this.params.simplify ? toSimplified(text) : text),
      declineFor: (question) => (/[\u4e00-\u9fff]/.test(question) || question === '' ? CANNOT_ANSWER_ZH : CANNOT_ANSWER_EN),
      answer: (user) => {
        const question = extractQuestion(user);
        const decline = this.tools.declineFor(question);
        const normalise = this.tools.normalise;
        const entries = parseContextBlock(user);
        if (entries.length === 0) return decline;
        const options = parseOptions(question);
        if (options.length >= 2 && user.includes('\\boxed')) return this.chooseOptions(options, entries.map((e) => normalise(e.text)));
        const ranked = this.sampled(rankSentences(entries.map((e) => e.text), characterBigrams(normalise(question)), this.params.minOverlap, normalise));
        const chosen = pickWithin(ranked, this.params.maxChars);
        return chosen.length > 0 ? chosen.map((c) => c.sentence).join('') : decline;
      },
    };
  }

  /**
   * Multiple choice: an option is chosen when nearly all (80%) of its bigrams occur in one context sentence
   * (the best option always is), answered as `\boxed{letters}` as the MCQ instructions ask.
   */
  private chooseOptions(options: { letter: string; text: string }[], contexts: string[]): string {
    const sentences = contexts.flatMap((text) => splitIntoSentences(text)).map((s) => characterBigrams(s));
    const support = options.map(({ letter, text }) => {
      const option = this.params.simplify ? toSimplified(text) : text;
      const size = characterBigrams(option).size;
      return { letter, best: size ? Math.max(0, ...sentences.map((sentence) => sharedBigrams(option, sentence) / size)) : 0 };
    });
    const top = Math.max(...support.map((s) => s.best));
    const chosen = support.filter((s) => s.best >= 0.8 || s.best === top).map((s) => s.letter);
    return `\\boxed{${chosen.join('')}}`;
  }

  /** Ranked sentences re-ranked by overlap + temperature × Gumbel noise (sampling without replacement from softmax(overlap / T)). */
  private sampled<T extends { overlap: number }>(ranked: T[]): T[] {
    const noise = this.noise;
    const temperature = this.params.temperature ?? 0;
    if (!noise || temperature <= 0 || ranked.length < 2) return ranked;
    return ranked
      .map((r) => ({ r, key: r.overlap - temperature * Math.log(-Math.log(noise())) }))
      .sort((a, b) => b.key - a.key)
      .map(({ r }) => r);
  }

  async generate(messages: ChatMessage[], options: GenerateOptions = {}): Promise<GenerationResult> {
    // It reads text only: answering an image prompt from its placeholders would hide that it saw nothing.
    const images = promptImages(messages).length;
    if (images) throw imagesRefused(this, images);
    if ((this.params.temperature ?? 0) > 0) {
      // Seeded by (seed, sample, prompt): the same sample of the same prompt always gets the same answer.
      const digest = createHash('sha256').update(`${this.params.seed ?? 0}\u0000${options.sample ?? 0}\u0000${messages.map(messageText).join('\u0000')}`).digest();
      const rng = xoroshiro128plus(digest.readInt32LE(0));
      this.noise = () => ((rng.next() >>> 0) + 0.5) / 4294967296;
    }
    try {
      const text = this.answer(messages);
      return { text, raw: text };
    } finally {
      this.noise = undefined;
    }
  }

  describe(): GeneratorDescription {
    const temperature = this.params.temperature ?? 0;
    return {
      name: this.name,
      model: this.model,
      ...this.params,
      ...(temperature > 0
        ? { sampling: `sampling stand-in: at temperature ${temperature} each answer ranks the context sentences by overlap plus Gumbel noise seeded by (seed ${this.params.seed ?? 0}, sample index, prompt), so repeated samples differ deterministically` }
        : {}),
    };
  }
}

export const createExtractive = (params: ExtractiveParams): Generator => new ExtractiveGenerator(params);
