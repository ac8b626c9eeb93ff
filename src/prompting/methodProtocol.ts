/**
 * Markers of the methods' prompts that the offline stand-in models (generation/logprobWriter.ts,
 * generation/searchReasoner.ts) read back: defined here, below both, so that a stand-in never
 * imports a method.
 */

/** FLARE: the section holding the answer written so far. */
export const ANSWER_SO_FAR = '【已写回答】';
/** FLARE: the section of the question-generation prompt holding the sentence to ask about. */
export const UNCERTAIN_SENTENCE = '【待查证句子】';
/** FLARE: what the answer section says before the first sentence. */
export const NOTHING_WRITTEN_YET = '（尚无）';

/** Search-trained models: written where a result would go once the search budget is spent (Search-o1's own message, in Chinese). */
export const SEARCH_LIMIT_NOTE = '已达到检索次数上限，不能再检索。请根据已有信息作答。';
