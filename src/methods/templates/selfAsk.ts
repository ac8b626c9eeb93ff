import { NO_FOLLOW_UP, OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** Self-Ask's question: which sub-question must be answered first? */
export const followUpPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，善于把复杂的史学问题拆解为可以查证的子问题。',
  user:
    '【问题】{question}\n\n【已知】\n{known}\n\n' +
    `【要求】为回答上述问题，还需要先查证哪一个子问题？子问题应具体（人物、时间、制度、事件），能通过查阅资料回答，且不与已知内容重复。若已知内容已足以回答，写“${NO_FOLLOW_UP}”。\n` +
    OUTPUT_FORMATS['follow-up'],
  slots: ['question', 'known'],
};

/** A sub-question answered from its own retrieval, briefly. */
export const intermediatePrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，请依据检索到的资料简要回答子问题。',
  user:
    '以下是检索到的参考资料，可能不完整，也可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n' +
    '【要求】请依据资料用一两句话回答这个子问题；资料中没有答案时，写“资料未载”。',
  slots: ['question', 'context'],
};

/** The final answer from the sub-questions' answers and their passages. */
export const finalPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，请结合检索到的资料与已查证的子问题准确回答问题。',
  user:
    '以下是为回答问题而查阅的资料，可能不完整，也可能与问题无关，请自行甄别。\n\n{context}\n\n【已知】\n{known}\n\n【问题】{question}\n\n【要求】{instructions}',
  slots: ['question', 'context', 'known', 'instructions'],
};

/** What the known section says before the first follow-up. */
export const NOTHING_KNOWN_YET = '（尚无）';
