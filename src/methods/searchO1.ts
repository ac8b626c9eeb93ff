import { passageBlock } from './passages.js';
import { stepMessages } from './prompts.js';
import { methodFactory } from './reader.js';
import { planSearchLoop, runSearchLoop, searchLoopOf, type SearchLoop, type SearchTags } from './searcher.js';
import { beginPrompt, continuePrompt, NOTHING_REASONED_YET, reasonInDocumentsPrompt } from './templates/searchO1.js';
import { searchO1Schema } from './searchO1Schema.js';

export { SearchO1ParamsSchema, type SearchO1Params } from './searchO1Schema.js';

/** Search-o1's own tags (the paper's special tokens, written as text). */
export const SEARCH_O1_TAGS: SearchTags = {
  query: ['<|begin_search_query|>', '<|end_search_query|>'],
  result: ['<|begin_search_result|>', '<|end_search_result|>'],
};


/**
 * Search-o1 (Li et al. 2025, "Search-o1: Agentic Search-Enhanced Large Reasoning Models", arXiv
 * 2501.05366): a reasoning model writes a query between `<|begin_search_query|>` and
 * `<|end_search_query|>` inside its reasoning; generation stops there; the query is retrieved at
 * the condition's k; a second call — Reason-in-Documents — reads the documents for the question, the
 * reasoning so far and the query, and its condensed result goes back between
 * `<|begin_search_result|>` and `<|end_search_result|>`; reasoning resumes, up to `maxSearches`
 * searches, then the answer. Works with endpoints that return reasoning apart (`reasoning_content`)
 * or inline (`<think>`), and through the completions API (`api: completions`) to continue the
 * partial reasoning itself. The loop is the searcher protocols' (searcher.ts); batch mode: one
 * round per step.
 */
export const createSearchO1Method = methodFactory({
  ...searchO1Schema,
  prompts: { begin: beginPrompt, continue: continuePrompt, reasonInDocuments: reasonInDocumentsPrompt },
  create(params, prompts) {
    const tags = params.tags ?? SEARCH_O1_TAGS;
    const loop: SearchLoop = {
      ...searchLoopOf(tags, params, prompts),
      async resultFor(context, query, passages, transcript, search) {
        const documents = passageBlock(passages, params).block;
        const messages = stepMessages(prompts.reasonInDocuments, { reasoning: transcript.trim() || NOTHING_REASONED_YET, query, documents, question: context.item.question });
        const reply = await context.generate(`reason-in-documents[${search}]`, messages);
        return reply.text.trim();
      },
    };
    return {
      calls: { min: 1, max: 2 * params.maxSearches + 2 },
      // Each search adds a Reason-in-Documents call; its result is one output (at most maxTokens).
      planCalls: (input) =>
        planSearchLoop(
          loop,
          input,
          params,
          (searches) => [{ outputs: searches }],
          (search, transcript) => [
            {
              label: `reason-in-documents[${search}]`,
              always: false,
              prompts: [{ prompt: prompts.reasonInDocuments, slots: { reasoning: transcript(search - 1, search), query: { outputs: 1 }, documents: { passages: input.k, params }, question: input.item.question } }],
            },
          ],
        ),
      run: (context) => runSearchLoop(context, loop, params),
    };
  },
});
