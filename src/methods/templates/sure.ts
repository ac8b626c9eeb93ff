import { comparedSummary, OUTPUT_FORMATS, SECTIONS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** SuRe step 1: candidate answers from the passages. */
export const candidatesPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，请依据检索到的资料提出可能的答案。',
  user:
    '以下是检索到的参考资料，可能不完整，也可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n' +
    '【要求】请依据资料给出该问题的几个可能答案（候选答案），彼此应有实质区别，各自简洁完整，并符合：{instructions}\n' +
    OUTPUT_FORMATS.candidates,
  slots: ['question', 'context', 'instructions', 'n'],
};

/** SuRe step 2: a summary of the passages conditioned on one candidate. */
export const summaryPrompt: MethodPrompt = {
  system: '你是一名历史文献整理助手，负责从资料中摘取支持某一答案的史实。',
  user:
    '以下是检索到的参考资料。\n\n{context}\n\n【问题】{question}\n\n' +
    `${SECTIONS.candidate}{candidate}\n\n` +
    '【要求】请从资料中摘取并概括能够支持该候选答案的史实，写成一段简短的摘要；只依据资料，不要编造。\n' +
    OUTPUT_FORMATS.condense,
  slots: ['question', 'context', 'candidate'],
};

/** SuRe step 3: does the summary support the candidate? */
export const validityPrompt: MethodPrompt = {
  system: '你是一名严谨的历史学审稿人。',
  user:
    `【问题】{question}\n\n${SECTIONS.candidate}{candidate}\n\n${SECTIONS.summary}{summary}\n\n` +
    '【要求】请判断：这段摘要是否足以支持该候选答案是问题的正确答案？\n' +
    OUTPUT_FORMATS.decide,
  slots: ['question', 'candidate', 'summary'],
};

/** SuRe step 4: which of two summaries is more informative for the question? */
export const rankPrompt: MethodPrompt = {
  system: '你是一名严谨的历史学审稿人。',
  user:
    `【问题】{question}\n\n${comparedSummary(1)}{summary1}\n\n${comparedSummary(2)}{summary2}\n\n` +
    '【要求】哪一段摘要对回答该问题更有帮助、更具体可靠？\n' +
    OUTPUT_FORMATS.choose,
  slots: ['question', 'summary1', 'summary2'],
};
