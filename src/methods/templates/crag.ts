import { OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** CRAG's retrieval evaluator, as an LLM judge: how relevant is one passage to the question (0–10)? */
export const gradePrompt: MethodPrompt = {
  system: '你是一名严谨的历史文献审读人，负责判断检索到的资料是否有助于回答问题。',
  user:
    '以下是一条检索到的资料。\n\n{context}\n\n【问题】{question}\n\n' +
    '【要求】请判断这条资料与问题的相关程度：资料直接载有回答问题所需的史实，记10；只涉及相关的人物、时间或制度而不足以作答，记4至6；与问题无关，记0。\n' +
    OUTPUT_FORMATS.grade,
  slots: ['question', 'context'],
};
