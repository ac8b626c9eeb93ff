import { FINAL_ANSWER_PREFIX, OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** IRCoT's reasoning step: one more sentence of reasoning, grounded in the passages, or the answer. */
export const reasonPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，依据史料逐步推理，每次只推进一步。',
  user:
    '以下是检索到的参考资料，可能不完整，也可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n' +
    '【已有推理】\n{reasoning}\n\n' +
    `【要求】请在已有推理的基础上，依据资料写出下一句推理（一句话，指明所据的史实）。若已能作答，写“${FINAL_ANSWER_PREFIX}”后接最终答案，最终答案须符合：{instructions}\n` +
    OUTPUT_FORMATS['next-step'],
  slots: ['question', 'context', 'reasoning', 'instructions'],
};

/** When the steps run out: the answer from the passages and the reasoning so far. */
export const concludePrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，请结合检索到的资料与已有推理准确回答问题。',
  user:
    '以下是检索到的参考资料，可能不完整，也可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n' +
    '【已有推理】\n{reasoning}\n\n【要求】请依据资料与以上推理给出最终答案。{instructions}',
  slots: ['question', 'context', 'reasoning', 'instructions'],
};

/** What the reasoning section says before the first step. */
export const NO_REASONING_YET = '（尚无）';
