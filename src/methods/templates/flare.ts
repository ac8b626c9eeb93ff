import { ANSWER_SO_FAR, UNCERTAIN_SENTENCE } from '../../prompting/methodProtocol.js';
import type { MethodPrompt } from '../prompts.js';

/**
 * FLARE's prompts (Jiang et al. 2023, "Active Retrieval Augmented Generation"), in Chinese: the
 * answer is written one sentence at a time, each with the documents retrieved last in front of it.
 */

/** Write (continue) the answer: the next sentence, with the documents retrieved last. */
export const writePrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，请参考检索到的资料，逐句写出问题的回答。',
  user:
    '以下是检索到的参考资料，可能不完整，也可能与问题无关，请自行甄别。\n\n{context}\n\n【问题】{question}\n\n' +
    `${ANSWER_SO_FAR}\n{answer}\n\n【要求】{instructions}\n请接着已写的回答往下写（尚无时从头写），不要重复已写的内容。`,
  slots: ['context', 'question', 'answer', 'instructions'],
};

/** FLARE with generated questions: a question about the uncertain span of a sentence, used as the query. */
export const questionPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，善于把不确定的陈述转化为可以检索的问题。',
  user:
    `【问题】{question}\n\n${UNCERTAIN_SENTENCE}{sentence}\n\n【不确定的部分】{uncertain}\n\n` +
    '【要求】针对这句话中不确定的部分，提出一个可以通过检索资料回答的具体问题，只写这个问题。',
  slots: ['question', 'sentence', 'uncertain'],
};
