/** The wikitext → text parsers a builder may name (`parser:`). */
export const WIKITEXT_PARSERS = ['fast', 'wtf_wikipedia'] as const;
export type WikitextParserName = (typeof WIKITEXT_PARSERS)[number];
