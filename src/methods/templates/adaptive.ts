import { OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** SKR's self-knowledge question, as a prompt: can the model answer without material? (是 = no retrieval). */
export const decidePrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，清楚自身知识的边界。',
  user:
    '【问题】{question}\n\n' +
    '【要求】请判断：你能否不借助任何外部资料，仅凭自身掌握的史学知识准确、可靠地回答这个问题？涉及具体人物、年代、官制细节、数字或史料原文而你没有把握的，请回答“否”。\n' +
    OUTPUT_FORMATS.decide,
  slots: ['question'],
};
