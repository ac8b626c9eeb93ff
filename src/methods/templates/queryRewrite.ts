import { OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** Rewrite–retrieve–read's rewriter (Ma et al. 2023, few-shot-free form): the question as one search query. */
export const rewritePrompt: MethodPrompt = {
  system: '你是一名历史文献检索助手，善于把研究问题改写为适合检索史料的查询。',
  user:
    '【问题】{question}\n\n' +
    '【要求】请把上述问题改写为一个检索查询：保留关键的人物、时间、地点、制度与事件名称，去掉疑问词和无关的修饰，必要时补充同义的旧称或别名。不要回答问题。\n' +
    OUTPUT_FORMATS.rewrite,
  slots: ['question'],
};
