import type { PromptTemplate } from './promptTemplate.js';

// Vertical, right-to-left reading is said outright: the benchmark paper finds image-input models
// lose text that breaks across pages (a column ends at the bottom left of one page and resumes at
// the top right of the next).
const READING_ORDER = '古籍页面为竖排，每页从右至左逐列阅读，每列自上而下；一列文字可能在页末中断，接续于下一页右起第一列。';

/** LongHisDoc's image setting: the book's page images (in page order) as the context. */
export const longHisDocImagesTemplate: PromptTemplate = {
  system: `你是一名古籍研究助手，请根据所给古籍的页面图像回答问题。${READING_ORDER}`,
  user: '以下是一部古籍的页面图像，按页排列。\n\n{context}\n\n【问题】{question}\n\n【要求】{instructions}',
};

/** Page images each followed by the page's OCR text. */
export const longHisDocImagesTextTemplate: PromptTemplate = {
  system: `你是一名古籍研究助手，请根据所给古籍的页面图像及其OCR文本回答问题。OCR文本可能有识读错误，以图像为准。${READING_ORDER}`,
  user: '以下是一部古籍的页面图像，按页排列，每页图像后附该页的OCR文本。\n\n{context}\n\n【问题】{question}\n\n【要求】{instructions}',
};

/** RAG over pages, shown as images. */
export const pageRagImagesTemplate: PromptTemplate = {
  system: `你是一名古籍研究助手，请根据检索到的古籍页面图像回答问题。${READING_ORDER}`,
  user: '以下是检索到的古籍页面图像，按相关度排列；页面可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n【要求】{instructions}',
};

/** RAG over pages, each image followed by its OCR text. */
export const pageRagImagesTextTemplate: PromptTemplate = {
  system: `你是一名古籍研究助手，请根据检索到的古籍页面图像及其OCR文本回答问题。OCR文本可能有识读错误，以图像为准。${READING_ORDER}`,
  user: '以下是检索到的古籍页面图像，按相关度排列，每页图像后附该页的OCR文本；页面可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n【要求】{instructions}',
};

/** RAG over pages, shown as their OCR text. */
export const pageRagTextTemplate: PromptTemplate = {
  system: '你是一名古籍研究助手，请根据检索到的古籍页面OCR文本回答问题。OCR文本可能有识读错误。',
  user: '以下是检索到的古籍页面OCR文本，按相关度排列；页面可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n【要求】{instructions}',
};
