import type { PromptTemplate } from './promptTemplate.js';

/** Closed book: the model answers from what it knows. */
export const closedBookTemplate: PromptTemplate = {
  system: '你是一名历史学研究助手，请准确回答用户提出的历史问题。',
  user: '【问题】{question}\n\n【要求】{instructions}',
};
