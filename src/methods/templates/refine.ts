import { OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** RECOMP's abstractive compressor, as a prompt: condense the passages with respect to the question. */
export const condensePrompt: MethodPrompt = {
  system: '你是一名历史文献整理助手，负责为研究者从检索资料中提炼与问题相关的史实。',
  user:
    '以下是检索到的资料，其中不少可能与问题无关。\n\n{context}\n\n【问题】{question}\n\n' +
    '【要求】请从资料中提炼与问题直接相关的史实（人物、时间、地点、制度、事件及其因果），删去无关内容，保留原有的专名、年号与数字；只依据资料，不要补充资料中没有的内容，也不要回答问题本身。若资料与问题无关，写“资料中没有与问题相关的内容”。\n' +
    OUTPUT_FORMATS.condense,
  slots: ['question', 'context'],
};

/** Title of the condensed context in the answer prompt. */
export const CONDENSED_TITLE = '据检索资料提炼';
