import { OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** HyDE's instruction-following step: a passage that would answer the question, written as a source would (it may be wrong: only its wording is searched with). */
export const hypothesisPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，熟悉中国古代史籍与研究文献的行文。',
  user:
    '【问题】{question}\n\n' +
    '【要求】请写一段可能出现在史籍或研究著作中、能够回答上述问题的文字（约一百至二百字），包含相关的人物、时间、制度与事件；不必注明出处，也不要说明这是假设。{variant}\n' +
    OUTPUT_FORMATS.hypothesis,
  slots: ['question'],
};
