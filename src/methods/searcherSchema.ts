import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const TagPairSchema = z.tuple([z.string().min(1), z.string().min(1)]);

export const SearchTagsSchema = z
  .object({
    query: TagPairSchema,
    result: TagPairSchema,
    answer: TagPairSchema.optional().describe('Where the final answer goes; without it, the answer is what follows the reasoning (`</think>`)'),
  })
  .strict();
export type SearchTags = z.infer<typeof SearchTagsSchema>;

export const SEARCHER_PROTOCOLS: Record<'r1-searcher' | 'research' | 'search-r1', SearchTags> = {
  'r1-searcher': { query: ['<|begin_of_query|>', '<|end_of_query|>'], result: ['<|begin_of_documents|>', '<|end_of_documents|>'], answer: ['<answer>', '</answer>'] },
  research: { query: ['<search>', '</search>'], result: ['<result>', '</result>'], answer: ['<answer>', '</answer>'] },
  'search-r1': { query: ['<search>', '</search>'], result: ['<information>', '</information>'], answer: ['<answer>', '</answer>'] },
};

/** The default completions template: instruction, then the model continues; `{system}` and `{user}` are the step's messages. */
export const DEFAULT_COMPLETION_TEMPLATE = '{system}\n\n{user}\n\n';

/** Fields Search-o1 and the searcher protocols share. */
export const ReasoningSearchFields = {
  maxSearches: z.number().int().min(1).max(50).default(5).describe('Searches at most; a query past it gets SEARCH_LIMIT_NOTE instead of results'),
  api: z.enum(['chat', 'completions']).default('chat').describe('`chat`: the transcript goes into the prompt; `completions`: `/v1/completions` continues it as text'),
  completionTemplate: z.string().min(1).default(DEFAULT_COMPLETION_TEMPLATE).describe('The completions prompt around the instruction: `{system}`, `{user}` (the model\'s chat template, ending where its reasoning starts)'),
};

export const SearcherParamsSchema = readerParamsSchema(['begin', 'continue'], {
  protocol: z.enum(['r1-searcher', 'research', 'search-r1', 'custom']).default('search-r1').describe('The search-tag protocol the reasoning model was trained with: `search-r1`, `r1-searcher`, `research`, or `custom` (give `tags`)'),
  tags: SearchTagsSchema.optional().describe('The tags of `protocol: custom` (or to override a preset\'s)'),
  ...ReasoningSearchFields,
}).refine((params) => params.protocol !== 'custom' || params.tags !== undefined, {
  path: ['tags'],
  message: 'protocol custom needs tags: { query: [open, close], result: [open, close], answer?: [open, close] }',
});
export type SearcherParams = z.infer<typeof SearcherParamsSchema>;

export const searcherSchema: ComponentSchema<SearcherParams> = {
  name: 'searcher',
  description: 'Search-trained reasoning models (R1-Searcher, ReSearch, Search-R1): the model writes query tags, hisrag retrieves and inserts results in its format; up to maxSearches + 2 generations',
  params: SearcherParamsSchema,
};
