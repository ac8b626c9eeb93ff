import { splitSentences } from '../chunking/sentences.js';
import { extractQuestion, parseContextBlock } from '../prompting/contextBlock.js';
import { ANSWER_SO_FAR, NOTHING_WRITTEN_YET, UNCERTAIN_SENTENCE } from '../prompting/methodProtocol.js';
import { sectionText } from '../prompting/taskFormat.js';
import type { ChatMessage } from '../prompting/types.js';
import { toSimplified } from '../text/simplify.js';
import { ExtractiveGenerator, lastUserText, type ExtractiveParams } from './extractive.js';
import { characterBigrams, questionClauses, rankSentences } from './lexicalOverlap.js';
import type { GenerateOptions, GenerationResult, Generator, GeneratorDescription, TokenLogprob } from './types.js';

export const LOGPROB_WRITER_NOTE =
  'offline stand-in for a model that returns token logprobs: writes one sentence per clause of the question, from the prompt\'s passages when one overlaps the clause (every token p = 0.95), else a guess whose unsupported words have p = 0.15; other prompts as the extractive stand-in';

/** Probabilities it gives its tokens (one character each): supported by a passage, and guessed. */
const SURE = Math.log(0.95);
const GUESSED = Math.log(0.15);
/** The words of a guess, which no passage supports. */
const GUESS = '史料所载不详';

/**
 * The offline stand-in for FLARE's model: a model whose confidence shows in its token logprobs. A
 * prompt with the answer-so-far section gets the next sentence — one per clause of the question,
 * in order: the passage sentence that overlaps the clause most (confident), or, where no passage
 * does, the clause with a guess (`…，史料所载不详。`, the guessed words at p = 0.15, below any usual θ).
 * After every sentence but the last it starts the next one and reports finish reason `length` (a
 * look-ahead cut by max tokens); after the last, `stop`. A question-generation prompt gets a question
 * about the sentence's certain part. Other prompts: the extractive stand-in's rules.
 */
export class LogprobWriterGenerator implements Generator {
  readonly name = 'logprob-writer';
  readonly model = 'logprob-writer';
  readonly #extractive: ExtractiveGenerator;

  constructor(private readonly params: ExtractiveParams) {
    this.#extractive = new ExtractiveGenerator(params);
  }

  async generate(messages: ChatMessage[], options: GenerateOptions = {}): Promise<GenerationResult> {
    const user = lastUserText(messages);
    if (user.includes(ANSWER_SO_FAR)) return this.#write(user, options);
    if (user.includes(UNCERTAIN_SENTENCE)) {
      const sentence = sectionText(user, UNCERTAIN_SENTENCE).trim();
      const certain = sentence.replace(GUESS, '').replace(/[，。]/g, '');
      const text = `${certain}的史实是什么？`;
      return { text, raw: text };
    }
    return this.#extractive.generate(messages);
  }

  #write(user: string, options: GenerateOptions): GenerationResult {
    const normalise = (t: string) => (this.params.simplify ? toSimplified(t) : t);
    const question = extractQuestion(user);
    const clauses = questionClauses(question);
    const writtenText = sectionText(user, ANSWER_SO_FAR).trim();
    const written = writtenText === NOTHING_WRITTEN_YET ? '' : writtenText;
    const index = splitSentences(written).length;
    const clause = clauses[index] ?? question.trim();
    const passages = parseContextBlock(user).map((e) => e.text);
    const supported = rankSentences(passages, characterBigrams(normalise(clause)), this.params.minOverlap, normalise).find((c) => !written.includes(c.sentence));
    const tokens: TokenLogprob[] = supported
      ? [...supported.sentence].map((token) => ({ token, logprob: SURE }))
      : [...`${clause}，`].map((token) => ({ token, logprob: SURE })).concat([...GUESS].map((token) => ({ token, logprob: GUESSED })), [{ token: '。', logprob: SURE }]);
    const last = index >= clauses.length - 1;
    if (!last) tokens.push(...[...(clauses[index + 1] ?? '').slice(0, 4)].map((token) => ({ token, logprob: SURE })));
    // A look-ahead ends at max tokens (one character each here), as an endpoint's would.
    const limit = options.call?.maxTokens ?? Infinity;
    const kept = tokens.slice(0, limit);
    const text = kept.map((t) => t.token).join('');
    const finishReason = !last || kept.length < tokens.length ? 'length' : 'stop';
    return { text, raw: text, finishReason, ...(options.call?.logprobs ? { logprobs: kept } : {}) };
  }

  describe(): GeneratorDescription {
    return { name: this.name, model: this.model, ...this.params, note: LOGPROB_WRITER_NOTE };
  }
}

export const createLogprobWriter = (params: ExtractiveParams): Generator => new LogprobWriterGenerator(params);
