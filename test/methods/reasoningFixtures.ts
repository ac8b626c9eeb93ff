import { openingTagOf, SearchReasonerGenerator, SearchReasonerParamsSchema } from '../../src/generation/searchReasoner.js';
import type { GenerationResult } from '../../src/generation/types.js';
import { deterministicResponder } from '../experiment/endpointFixtures.js';
import type { ChatReply, ChatRequestBody, CompletionReply, CompletionRequestBody } from '../helpers/openaiServer.js';

/** The conditions of issue 34 part 1 as the endpoint tests run them: every method, every API. */
export const REASONING_METHODS = [
  { name: 'search-o1', maxSearches: 2 },
  { name: 'search-o1', maxSearches: 1, api: 'completions', label: 'search-o1-completions' },
  { name: 'searcher', protocol: 'research', maxSearches: 2, api: 'completions', label: 'research' },
  { name: 'searcher', protocol: 'search-r1', maxSearches: 1, label: 'search-r1' },
  { name: 'flare', maxSentences: 3 },
  { name: 'flare', query: 'question', maxSentences: 3, label: 'flare-question' },
];

const separate = new SearchReasonerGenerator(SearchReasonerParamsSchema.parse({ reasoningOutput: 'separate' }));
const inline = new SearchReasonerGenerator(SearchReasonerParamsSchema.parse({}));

const stopsOf = (stop: unknown): string[] => (typeof stop === 'string' ? [stop] : Array.isArray(stop) ? (stop as string[]) : []);

/**
 * The stand-in cuts its own output at the stop sequence; a real model writes on past the closing
 * tag, and the endpoint must cut it: put the tag back, with more text after it.
 */
function writtenOn(text: string, stop: string[]): string {
  const close = stop.find((s) => openingTagOf(s));
  const open = close && openingTagOf(close);
  if (!close || !open || text.lastIndexOf(open) <= text.lastIndexOf(close)) return text;
  return `${text}${close}\n（模型此后会继续写下去：<|begin_search_result|>编造的结果）`;
}

const settingsOf = (request: { stop?: unknown; max_tokens?: number }, logprobs: boolean) => ({
  call: { stop: stopsOf(request.stop), ...(logprobs ? { logprobs: true } : {}), ...(request.max_tokens !== undefined ? { maxTokens: request.max_tokens } : {}) },
});

/**
 * A reasoning model behind the local server: the search-reasoner stand-in, returning its reasoning
 * apart (`reasoning_content`) and its tokens' logprobs; judge prompts get the deterministic judge.
 */
export async function reasoningResponder(request: ChatRequestBody): Promise<ChatReply> {
  const prompt = request.messages.map((m) => m.content).join('\n');
  if (/^(?:加分项|减分项)_\d+: 0或1$/m.test(prompt)) return deterministicResponder(request);
  const messages = request.messages.map((m) => ({ role: m.role as 'user', content: m.content ?? '' }));
  const result: GenerationResult = await separate.generate(messages, settingsOf(request, request.logprobs === true));
  const stop = stopsOf(request.stop);
  if (result.reasoning !== undefined && !result.raw.includes(result.reasoning)) {
    return { content: result.raw, reasoning_content: writtenOn(result.reasoning, stop), ...(result.logprobs ? { logprobs: result.logprobs } : {}) };
  }
  return { content: writtenOn(result.raw, stop), ...(result.logprobs ? { logprobs: result.logprobs } : {}) };
}

/** The same model through `/v1/completions`: the text continued, its reasoning inline. */
export async function reasoningCompletion(request: CompletionRequestBody): Promise<CompletionReply> {
  const result = await inline.complete(request.prompt, settingsOf(request, request.logprobs !== undefined));
  return { text: writtenOn(result.raw, stopsOf(request.stop)), ...(result.logprobs ? { logprobs: result.logprobs } : {}) };
}
