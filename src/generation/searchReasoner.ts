import { extractQuestion } from '../prompting/contextBlock.js';
import { SEARCH_LIMIT_NOTE } from '../prompting/methodProtocol.js';
import type { ChatMessage } from '../prompting/types.js';
import { toSimplified } from '../text/simplify.js';
import { CANNOT_ANSWER_ZH, lastUserText } from './extractive.js';
import { characterBigrams, pickWithin, questionClauses, rankSentences } from './lexicalOverlap.js';
import { LogprobWriterGenerator } from './logprobWriter.js';
import type { GenerateOptions, GenerationResult, Generator, GeneratorDescription } from './types.js';
import type { SearchReasonerParams } from './searchReasonerSchema.js';

export { SearchReasonerParamsSchema, type SearchReasonerParams } from './searchReasonerSchema.js';

export const SEARCH_REASONER_NOTE =
  'offline stand-in for a reasoning model that searches: asks for each clause of the question in turn between the query tags of the stop sequence, answers from the inserted results by character-bigram overlap; other prompts as the logprob-writer (FLARE) and extractive stand-ins';

/** How its reasoning announces a search (its own lines are no material for the answer). */
const LOOKING_UP = '需要查证：';

/** The opening tag of a closing one: `</search>` → `<search>`, `<|end_search_query|>` → `<|begin_search_query|>`, `<|end_of_query|>` → `<|begin_of_query|>`. */
export function openingTagOf(close: string): string | undefined {
  if (close.startsWith('</')) return `<${close.slice(2)}`;
  if (close.includes('end')) return close.replace('end', 'begin');
  return undefined;
}

/** The text of every tagged span (`open…close`) of a text. */
function spans(text: string, open: string, close: string): string[] {
  const out: string[] = [];
  let at = text.indexOf(open);
  while (at >= 0) {
    const end = text.indexOf(close, at + open.length);
    if (end < 0) break;
    out.push(text.slice(at + open.length, end).trim());
    at = text.indexOf(open, end + close.length);
  }
  return out;
}

/**
 * The offline stand-in for a reasoning model that searches (Search-o1, R1-Searcher, ReSearch,
 * Search-R1). A request whose stop sequences include a closing query tag is a reasoning step: it
 * asks for the question's clauses one by one (`需要查证：…` then the opening tag and the clause, cut
 * at the stop sequence as an endpoint would), and when every clause was searched, or the prompt says
 * the search budget is spent, it answers with the sentences after its first search that overlap
 * the question most (`</think>` then the answer, inside `<answer>` tags where the prompt asks for
 * them). It continues a text through `complete` alike. Every other prompt is the logprob-writer's
 * (FLARE's sentences, with logprobs: a reasoning model served by vLLM returns them too), and so the
 * extractive stand-in's rules (Reason-in-Documents, closed-book, standard RAG). Lexical rules only: it
 * recognises tags and sections, never a method or a question.
 */
export class SearchReasonerGenerator implements Generator {
  readonly name = 'search-reasoner';
  readonly model = 'search-reasoner';
  /** Everything but a reasoning step: FLARE's sentence-by-sentence writing with logprobs, else the extractive rules. */
  readonly #other: LogprobWriterGenerator;

  constructor(private readonly params: SearchReasonerParams) {
    const { reasoningOutput: _, ...rest } = params;
    this.#other = new LogprobWriterGenerator(rest);
  }

  async generate(messages: ChatMessage[], options: GenerateOptions = {}): Promise<GenerationResult> {
    const close = this.#queryClose(options);
    if (!close) return this.#other.generate(messages, options);
    return this.#reason(lastUserText(messages), close, options.call?.stop ?? []);
  }

  complete(prompt: string, options: GenerateOptions = {}): Promise<GenerationResult> {
    return this.generate([{ role: 'user', content: prompt }], options);
  }

  #queryClose(options: GenerateOptions): string | undefined {
    return options.call?.stop?.find((stop) => openingTagOf(stop) !== undefined);
  }

  #reason(text: string, close: string, stop: string[]): GenerationResult {
    const open = openingTagOf(close)!;
    const question = extractQuestion(text);
    // The instruction's own example (`检索词`) is no search.
    const searched = spans(text, open, close).filter((q) => q && q !== '检索词');
    const pending = questionClauses(question).filter((clause) => !searched.includes(clause));
    const thinking = text.includes('<think>') ? '' : '<think>';
    if (pending.length && !text.includes(SEARCH_LIMIT_NOTE)) {
      const clause = pending[0]!;
      const step = `${thinking}${LOOKING_UP}${clause}。\n${open}${clause}${close}\n`;
      return this.#result(cutAtStop(step, stop), undefined);
    }
    // Its material: the lines after its first search (results; tag lines and passage headers left out).
    const first = searched.length ? text.indexOf(`${open}${searched[0]}${close}`) : -1;
    const material = first >= 0 ? text.slice(first).split('\n').filter((line) => !line.includes(open) && !/^<[^>]+>$|^<\|[^|]+\|>$|^【/.test(line.trim()) && !line.includes(LOOKING_UP) && !line.includes(SEARCH_LIMIT_NOTE)) : [];
    const normalise = (t: string) => (this.params.simplify ? toSimplified(t) : t);
    const ranked = rankSentences(material, characterBigrams(normalise(question)), this.params.minOverlap, normalise);
    const chosen = pickWithin(ranked, this.params.maxChars).map((c) => c.sentence).join('');
    const answer = chosen || CANNOT_ANSWER_ZH;
    const final = text.includes('<answer>') ? `<answer>${answer}</answer>` : answer;
    return this.#result(`${thinking}检索已足够，整理作答。\n</think>\n`, final);
  }

  /** Reasoning (and an answer) as this stand-in returns them: inline in the content, or apart. */
  #result(reasoning: string, answer: string | undefined): GenerationResult {
    if (this.params.reasoningOutput === 'separate') {
      const thought = reasoning.replace('<think>', '').replace('</think>', '').trim();
      return { text: answer ?? '', raw: answer ?? '', reasoning: thought, finishReason: 'stop' };
    }
    const raw = `${reasoning}${answer ?? ''}`;
    const close = raw.lastIndexOf('</think>');
    const text = close >= 0 ? raw.slice(close + '</think>'.length).trim() : '';
    return { text, raw, reasoning: raw.slice(0, close >= 0 ? close : raw.length).replace('<think>', '').trim(), finishReason: 'stop' };
  }

  describe(): GeneratorDescription {
    return { name: this.name, model: this.model, ...this.params, note: SEARCH_REASONER_NOTE };
  }
}

/** The text before the first stop sequence, as an endpoint returns it (the stop sequence left out). */
export function cutAtStop(text: string, stop: readonly string[]): string {
  let end = text.length;
  for (const s of stop) {
    const at = text.indexOf(s);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

export const createSearchReasoner = (params: SearchReasonerParams): Generator => new SearchReasonerGenerator(params);
