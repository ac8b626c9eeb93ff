import { splitSentences } from '../chunking/sentences.js';
import { ConfigError } from '../errors.js';
import type { GenerationResult, TokenLogprob } from '../generation/types.js';
import { answerInstructions } from '../prompting/answerInstructions.js';
import { FINAL_ANSWER_PREFIX } from '../prompting/taskFormat.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { passageBlock } from './passages.js';
import { methodFactory } from './reader.js';
import { stepMessages } from './prompts.js';
import { NOTHING_WRITTEN_YET } from '../prompting/methodProtocol.js';
import { questionPrompt, writePrompt } from './templates/flare.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { flareSchema } from './flareSchema.js';

/** The first sentence of a look-ahead, the tokens that wrote it, and whether anything followed. */
export function firstSentence(text: string, logprobs: TokenLogprob[] | undefined): { sentence: string; tokens: TokenLogprob[]; rest: string } {
  const trimmed = text.trimStart();
  const first = splitSentences(trimmed)[0]?.text ?? trimmed;
  const end = trimmed.indexOf(first) + first.length;
  const sentence = first.trim();
  const rest = trimmed.slice(end).trim();
  if (!logprobs) return { sentence, tokens: [], rest };
  // Tokens up to the sentence's end, by their characters (leading whitespace the trim removed counts too).
  const limit = text.length - trimmed.length + end;
  const tokens: TokenLogprob[] = [];
  let covered = 0;
  for (const token of logprobs) {
    if (covered >= limit) break;
    tokens.push(token);
    covered += token.token.length;
  }
  return { sentence, tokens, rest };
}

/** FLARE-direct's masked query: the sentence's tokens without those below θ (their text dropped, the rest kept in order). */
export function maskedQuery(tokens: TokenLogprob[], threshold: number): string {
  return tokens
    .filter((t) => Math.exp(t.logprob) >= threshold)
    .map((t) => t.token)
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * FLARE (Jiang et al. 2023, "Active Retrieval Augmented Generation", EMNLP; FLARE-direct): the
 * answer is written a sentence at a time. Each step generates a look-ahead (`lookAheadTokens`, with
 * token logprobs) with the documents retrieved last, and keeps its first sentence; if every token's
 * probability is at least θ the sentence is accepted, otherwise the sentence is the query — its
 * low-confidence tokens masked (`query: masked`) or a question asked about them (`query: question`)
 * — and the sentence is generated again with what that retrieval found. It ends when the model
 * stops on its own after a sentence (finish reason `stop`, nothing after it), or at `maxSentences`.
 *
 * Needs token logprobs from the endpoint (vLLM, OpenAI): a generator that returns none is refused
 * at its first look-ahead (exit 2, naming the model). Look-ahead is generated without stop
 * sequences and cut at the first sentence end, as FLARE's own implementation does: a stop sequence
 * would hide whether the model ended its answer there. Batch mode: one round per step.
 */
export const createFlareMethod = methodFactory({
  ...flareSchema,
  prompts: { write: writePrompt, question: questionPrompt },
  create(params, prompts) {
    const perSentence = params.query === 'question' ? 3 : 2;
    return {
      calls: { min: 1, max: params.maxSentences * perSentence },
      // Sentence s sees at most k passages (the last retrieval) and s − 1 earlier sentences (each a part of one output).
      planCalls: ({ item, k, questionPassages }: PlanInput): CallBound[] => {
        const instructions = answerInstructions(item, params.instructions);
        const written = (sentences: number) => ({ outputs: sentences, none: NOTHING_WRITTEN_YET });
        const first = passageBlock(params.retrieveFirst ? (questionPassages ?? []) : [], params).block;
        const write = (s: number) => ({ prompt: prompts.write, slots: { context: { passages: k, params }, question: item.question, answer: written(s - 1), instructions } });
        const calls: CallBound[] = [];
        for (let s = 1; s <= params.maxSentences; s++) {
          const lookAhead = s === 1 ? { messages: stepMessages(prompts.write, { context: first, question: item.question, answer: NOTHING_WRITTEN_YET, instructions }) } : write(s);
          calls.push({ label: `look-ahead[${s}]`, always: s === 1, prompts: [lookAhead] });
          if (params.query === 'question') {
            calls.push({ label: `question[${s}]`, always: false, prompts: [{ prompt: prompts.question, slots: { question: item.question, sentence: { outputs: 1 }, uncertain: { outputs: 1 } } }] });
          }
          calls.push({ label: `regenerate[${s}]`, always: false, prompts: [write(s)] });
        }
        return calls;
      },
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const instructions = answerInstructions(item, params.instructions);
        let passages: RetrievedChunk[] = params.retrieveFirst ? await context.retrieve(item.question, 'retrieve[0]') : [];
        const sentences: string[] = [];
        const contextIds = new Set<string>();
        let last: { result: GenerationResult; messages: ReturnType<typeof stepMessages>; dropped: number } | undefined;
        let retrievals = 0;
        const write = async (label: string, logprobs: boolean) => {
          const placed = passageBlock(passages, params);
          const messages = stepMessages(prompts.write, { context: placed.block, question: item.question, answer: sentences.join('') || NOTHING_WRITTEN_YET, instructions });
          const result = await context.generate(label, messages, { call: { maxTokens: params.lookAheadTokens, ...(logprobs ? { logprobs: true } : {}) } });
          for (const id of placed.ids) contextIds.add(id);
          last = { result, messages, dropped: placed.dropped };
          return result;
        };
        let finished = false;
        for (let s = 1; s <= params.maxSentences && !finished; s++) {
          const lookAhead = await write(`look-ahead[${s}]`, true);
          if (!lookAhead.logprobs) {
            throw new ConfigError(
              `method "flare": model ${context.model ?? 'of the run'} returned no token logprobs to a request with logprobs: true (FLARE's threshold: ${params.threshold}); FLARE needs an endpoint that returns them (vLLM, OpenAI), or remove flare from strategies:`,
            );
          }
          let step = firstSentence(lookAhead.text, lookAhead.logprobs);
          if (!step.sentence) break;
          const low = step.tokens.filter((t) => Math.exp(t.logprob) < params.threshold);
          if (low.length) {
            const minProbability = Math.min(...step.tokens.map((t) => Math.exp(t.logprob)));
            context.record('low-confidence', `low-confidence[${s}]`, { sentence: step.sentence, minProbability: Number(minProbability.toFixed(4)), lowTokens: low.length, uncertain: low.map((t) => t.token).join('|') });
            let query = maskedQuery(step.tokens, params.threshold);
            if (params.query === 'question') {
              const asked = await context.generate(`question[${s}]`, stepMessages(prompts.question, { question: item.question, sentence: step.sentence, uncertain: low.map((t) => t.token.trim()).join('、') }));
              query = asked.text.trim() || query;
            }
            passages = await context.retrieve(query || item.question, `retrieve[${s}]`);
            retrievals++;
            const again = await write(`regenerate[${s}]`, false);
            step = firstSentence(again.text, undefined);
            if (!step.sentence) break;
          }
          sentences.push(step.sentence);
          finished = step.rest === '' && last!.result.finishReason !== 'length';
        }
        const written = sentences.join('');
        const at = written.indexOf(FINAL_ANSWER_PREFIX);
        const answer = at >= 0 ? written.slice(at + FINAL_ANSWER_PREFIX.length).trim() : written;
        const final = last!;
        return {
          answer,
          response: { ...final.result, text: answer },
          prompt: final.messages,
          contextIds: [...contextIds],
          truncated: final.dropped,
          notes: { sentences: sentences.length, retrievals, reachedMaxSentences: !finished },
        };
      },
    };
  },
});
