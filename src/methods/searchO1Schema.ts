import { z } from 'zod';
import { readerParamsSchema } from './reader.js';
import { ReasoningSearchFields, SearchTagsSchema } from './searcherSchema.js';
import type { ComponentSchema } from '../registry.js';

export const SearchO1ParamsSchema = readerParamsSchema(['begin', 'continue', 'reasonInDocuments'], {
  tags: SearchTagsSchema.optional().describe('The tags (Search-o1\'s by default); an answer pair makes the answer what is inside it'),
  ...ReasoningSearchFields,
});
export type SearchO1Params = z.infer<typeof SearchO1ParamsSchema>;

export const searchO1Schema: ComponentSchema<SearchO1Params> = {
  name: 'search-o1',
  description: 'Search-o1: queries inside the reasoning, Reason-in-Documents condenses each retrieval; up to 2 × maxSearches + 2 generations',
  params: SearchO1ParamsSchema,
};
