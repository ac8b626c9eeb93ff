import type { PromptTemplate } from './promptTemplate.js';

/** LongHisDoc's text setting: the book's OCR pages (in page order) as the context. */
export const longHisDocFullTemplate: PromptTemplate = {
  system: '你是一名古籍研究助手，请根据所给古籍的OCR文本回答问题。OCR文本可能有识读错误。',
  user: '以下是一部古籍的OCR文本，按页排列。\n\n{context}\n\n【问题】{question}\n\n【要求】{instructions}',
};
