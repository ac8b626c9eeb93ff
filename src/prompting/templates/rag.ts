import type { PromptTemplate } from './promptTemplate.js';

/** RAG@k: the retrieved passages, each headed `【资料N】《title》`, before the question. */
export const ragTemplate: PromptTemplate = {
  system: '你是一名历史学研究助手，请结合检索到的资料与自身知识准确回答问题。',
  user:
    '以下是检索到的参考资料。资料可能不完整，也可能与问题无关，请自行甄别；引用资料时请注明其编号与来源。\n\n' +
    '{context}\n\n【问题】{question}\n\n【要求】{instructions}',
};
