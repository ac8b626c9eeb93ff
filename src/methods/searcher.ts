import { ConfigError } from '../errors.js';
import type { GenerationResult } from '../generation/types.js';
import { answerInstructions } from '../prompting/answerInstructions.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { passageBlock } from './passages.js';
import { stepMessages, type MethodPrompt } from './prompts.js';
import { methodFactory, type ReaderParams } from './reader.js';
import { SEARCH_LIMIT_NOTE } from '../prompting/methodProtocol.js';
import { ANSWER_RULE_PLAIN, answerRuleWith, beginPrompt, continuePrompt } from './templates/searcher.js';
import type { CallBound, MethodContext, MethodOutcome, PlanInput, SlotBound } from './types.js';
import { searcherSchema, SEARCHER_PROTOCOLS, type SearcherParams, type SearchTags } from './searcherSchema.js';

export { SEARCHER_PROTOCOLS, type SearchTags } from './searcherSchema.js';

/**
 * Reasoning with search for models trained to search (RL-trained "searchers"), and the loop
 * Search-o1 (searchO1.ts) shares: the model writes a query between its query tags inside its
 * reasoning; generation stops there (the closing tag is a stop sequence); the query is retrieved at
 * the condition's k; the result goes back between the result tags in the model's own format, and the
 * model continues — until it answers (its answer tags, or text after its reasoning), or the search
 * budget is spent: then the limit is written where the result would be and one last continuation
 * gives the answer.
 *
 * Protocols (each paper's tags):
 * - `r1-searcher`: R1-Searcher (Song et al. 2025, arXiv 2503.05592): `<|begin_of_query|>` …
 *   `<|end_of_query|>`, documents in `<|begin_of_documents|>` … `<|end_of_documents|>`, answer in
 *   `<answer>` … `</answer>`.
 * - `research`: ReSearch (Chen et al. 2025, arXiv 2503.19470): `<search>` … `</search>`, `<result>`
 *   … `</result>`, answer in `<answer>` … `</answer>`.
 * - `search-r1`: Search-R1 (Jin et al. 2025, arXiv 2503.09516): `<search>` … `</search>`,
 *   `<information>` … `</information>`, answer in `<answer>` … `</answer>`.
 * - `custom`: the tags given in `tags:`.
 *
 * `api: chat` sends the transcript so far inside the prompt (a chat endpoint cannot continue a
 * partial reply); `api: completions` continues it as text (`/v1/completions`, the prompt written with
 * `completionTemplate`: the model's own chat template, e.g. DeepSeek-R1's, around the instruction).
 *
 * Batch mode: every continuation depends on the last retrieval, so a batch run goes one round per
 * step (docs/batch.md); completions-API calls are made live (the Batch API here takes chat requests).
 */

/** What a step's result says: the text the model wrote, and the query it stopped at (if any). */
export interface ParsedStep {
  /** The model's text up to and including its query's closing tag (or all of it). */
  written: string;
  query?: string;
}

/** True when the endpoint returned the reasoning apart from the content (`reasoning_content`). */
const reasoningApart = (result: GenerationResult) => Boolean(result.reasoning && !result.raw.includes(result.reasoning));

/** The model's whole output of a step: reasoning returned apart (`reasoning_content`) first, then its content. */
export function outputOf(result: GenerationResult): string {
  if (reasoningApart(result)) return result.raw.trim() ? `${result.reasoning}\n${result.raw}` : result.reasoning!;
  return result.raw;
}

/**
 * The query a step stopped at: the last opening tag with no closing tag after it (the endpoint
 * ended the output at the closing tag and left it out), or a complete pair the server kept
 * (`include_stop_str_in_output`). Text after a complete pair is dropped: the result goes there.
 */
export function parseStep(output: string, [open, close]: readonly [string, string]): ParsedStep {
  const at = output.lastIndexOf(open);
  if (at < 0) return { written: output };
  const after = output.slice(at + open.length);
  const end = after.indexOf(close);
  const query = (end >= 0 ? after.slice(0, end) : after).trim();
  if (!query) return { written: output };
  return { written: `${output.slice(0, at)}${open}${query}${close}`, query };
}

/** The final answer of a step with no query: inside the answer tags, else after the reasoning (`</think>`), else after the last result. */
export function answerOf(output: string, tags: SearchTags): string {
  if (tags.answer) {
    const [open, close] = tags.answer;
    const at = output.lastIndexOf(open);
    if (at >= 0) {
      const rest = output.slice(at + open.length);
      const end = rest.indexOf(close);
      return (end >= 0 ? rest.slice(0, end) : rest).trim();
    }
  }
  const think = output.lastIndexOf('</think>');
  if (think >= 0) return output.slice(think + '</think>'.length).trim();
  const result = output.lastIndexOf(tags.result[1]);
  return (result >= 0 ? output.slice(result + tags.result[1].length) : output).replace('<think>', '').trim();
}

/** How one reasoning-with-search method fills the loop: its prompts, and what goes between the result tags. */
export interface SearchLoop {
  tags: SearchTags;
  maxSearches: number;
  api: 'chat' | 'completions';
  completionTemplate: string;
  begin: MethodPrompt;
  continued: MethodPrompt;
  /** Fixed slot values of the prompts beyond question, instructions and reasoning. */
  fixed: Record<string, string | number>;
  /** The text between the result tags for a query's retrieval (searcher: the passages; Search-o1: a condensed reading). */
  resultFor(context: MethodContext, query: string, passages: RetrievedChunk[], transcript: string, search: number): Promise<string>;
}

/** The completions prompt of a step: the instruction in the model's template, then the transcript to continue. */
export function completionPrompt(loop: Pick<SearchLoop, 'completionTemplate' | 'begin'>, values: Record<string, string | number>, transcript: string): string {
  const [system, user] = stepMessages(loop.begin, values).reduce<[string, string]>((acc, m) => (m.role === 'system' ? [String(m.content), acc[1]] : [acc[0], String(m.content)]), ['', '']);
  return loop.completionTemplate.replace('{system}', system).replace('{user}', user) + transcript;
}

/** Runs the loop for one item; records per item: searches, whether the budget ran out. */
export async function runSearchLoop(context: MethodContext, loop: SearchLoop, params: Pick<ReaderParams, 'instructions'>): Promise<MethodOutcome> {
  const { item } = context;
  const instructions = answerInstructions(item, params.instructions);
  const values = { ...loop.fixed, question: item.question, instructions };
  const stop = [loop.tags.query[1]];
  let transcript = '';
  let searches = 0;
  let limitReached = false;
  const contextIds: string[] = [];
  const step = async (label: string): Promise<{ result: GenerationResult; prompt: MethodOutcome['prompt'] }> => {
    if (loop.api === 'completions') {
      const prompt = completionPrompt(loop, values, transcript);
      return { result: await context.complete(label, prompt, { call: { stop } }), prompt: [{ role: 'prompt', content: prompt }] };
    }
    const messages = transcript ? stepMessages(loop.continued, { ...values, reasoning: transcript }) : stepMessages(loop.begin, values);
    return { result: await context.generate(label, messages, { call: { stop } }), prompt: messages };
  };
  for (let n = 1; ; n++) {
    const { result, prompt } = await step(limitReached ? 'answer' : `reason[${n}]`);
    const output = outputOf(result);
    const parsed = parseStep(output, loop.tags.query);
    if (parsed.query === undefined || limitReached) {
      // No query (or the last call after the limit): the answer — in the content where reasoning came back apart.
      const source = reasoningApart(result) ? result.raw : output;
      const queryAt = source.lastIndexOf(loop.tags.query[0]);
      const answer = answerOf(queryAt >= 0 ? source.slice(0, queryAt) : source, loop.tags);
      return {
        answer,
        response: { ...result, text: answer },
        prompt,
        contextIds,
        truncated: 0,
        notes: { searches, reachedMaxSearches: limitReached },
      };
    }
    transcript += `${parsed.written}\n`;
    if (searches >= loop.maxSearches) {
      limitReached = true;
      transcript += `${loop.tags.result[0]}\n${SEARCH_LIMIT_NOTE}\n${loop.tags.result[1]}\n`;
      context.record('search-limit', `limit[${n}]`, { query: parsed.query, searches });
      continue;
    }
    searches++;
    const passages = await context.retrieve(parsed.query, `retrieve[${searches}]`);
    for (const chunk of passages) if (!contextIds.includes(chunk.id)) contextIds.push(chunk.id);
    const text = await loop.resultFor(context, parsed.query, passages, transcript, searches);
    transcript += `${loop.tags.result[0]}\n${text}\n${loop.tags.result[1]}\n`;
  }
}

/**
 * The plan's calls of the loop: `reason[n]` for n ≤ maxSearches + 1 (the first always), `answer`
 * after the limit, each with the transcript so far — the model's earlier outputs (each at most
 * maxTokens) and the results — and, per search, what `extraCalls` adds (Search-o1's condensing).
 */
export function planSearchLoop(
  loop: SearchLoop,
  input: PlanInput,
  params: Pick<ReaderParams, 'instructions'>,
  result: (searches: number) => SlotBound[],
  extraCalls: (search: number, transcript: (searches: number, outputs: number) => SlotBound) => CallBound[] = () => [],
): CallBound[] {
  const instructions = answerInstructions(input.item, params.instructions);
  const values: Record<string, string> = Object.fromEntries(Object.entries({ ...loop.fixed, question: input.item.question, instructions }).map(([k, v]) => [k, String(v)]));
  // The transcript after s searches: s + 1 outputs at most before the next call (the limit's note counts as fixed text), and s results.
  const around = `\n${loop.tags.query[0]}${loop.tags.query[1]}${loop.tags.result[0]}${loop.tags.result[1]}\n\n${SEARCH_LIMIT_NOTE}\n`;
  const transcript = (searches: number, outputs = searches): SlotBound => ({ sum: [{ outputs, around }, ...result(searches)] });
  const promptOf = (searches: number, outputs = searches) => {
    if (loop.api === 'completions') {
      const user = loop.completionTemplate.replace('{system}', loop.begin.system).replace('{user}', loop.begin.user) + '{reasoning}';
      return { prompt: { system: '', user, slots: [] }, slots: { ...values, reasoning: transcript(searches, outputs) } };
    }
    return { prompt: loop.continued, slots: { ...values, reasoning: transcript(searches, outputs) } };
  };
  const first = loop.api === 'completions' ? { messages: [{ role: 'user' as const, content: completionPrompt(loop, values, '') }] } : { messages: stepMessages(loop.begin, values) };
  const calls: CallBound[] = [{ label: 'reason[1]', always: true, prompts: [first] }];
  for (let s = 1; s <= loop.maxSearches; s++) {
    calls.push(...extraCalls(s, transcript));
    calls.push({ label: `reason[${s + 1}]`, always: false, prompts: [promptOf(s)] });
  }
  calls.push({ label: 'answer', always: false, prompts: [promptOf(loop.maxSearches, loop.maxSearches + 1)] });
  return calls;
}


export function searcherTags(params: Pick<SearcherParams, 'protocol' | 'tags'>): SearchTags {
  if (params.tags) return params.tags;
  if (params.protocol === 'custom') throw new ConfigError('method "searcher": protocol custom needs tags: { query: [open, close], result: [open, close], answer?: [open, close] }');
  return SEARCHER_PROTOCOLS[params.protocol];
}

/** What a search loop takes from its tags, params and prompts (searcher, Search-o1); `fixed` holds the tags' and budget's slots. */
export function searchLoopOf(tags: SearchTags, params: Pick<SearchLoop, 'maxSearches' | 'api' | 'completionTemplate'>, prompts: { begin: MethodPrompt; continue: MethodPrompt }): Omit<SearchLoop, 'resultFor'> {
  const { maxSearches, api, completionTemplate } = params;
  const fixed = { queryOpen: tags.query[0], queryClose: tags.query[1], resultOpen: tags.result[0], resultClose: tags.result[1], maxSearches };
  return { tags, maxSearches, api, completionTemplate, begin: prompts.begin, continued: prompts.continue, fixed };
}

export const createSearcherMethod = methodFactory({
  ...searcherSchema,
  prompts: { begin: beginPrompt, continue: continuePrompt },
  create(params, prompts) {
    const tags = searcherTags(params);
    const searchLoop = searchLoopOf(tags, params, prompts);
    const loop: SearchLoop = {
      ...searchLoop,
      fixed: { ...searchLoop.fixed, answerRule: tags.answer ? answerRuleWith(tags.answer[0], tags.answer[1]) : ANSWER_RULE_PLAIN },
      // The retrieved passages themselves, as the model was trained to read them.
      resultFor: async (_context, _query, passages) => passageBlock(passages, params).block,
    };
    return {
      calls: { min: 1, max: params.maxSearches + 2 },
      planCalls: (input) => planSearchLoop(loop, input, params, (searches) => Array.from({ length: searches }, () => ({ passages: input.k, params }))),
      run: (context) => runSearchLoop(context, loop, params),
    };
  },
});
