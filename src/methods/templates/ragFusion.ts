import { OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/** RAG-Fusion / MultiQueryRetriever's query generator: n search queries for different facets of the question. */
export const queriesPrompt: MethodPrompt = {
  system: '你是一名历史文献检索助手，善于从不同角度为研究问题拟定检索查询。',
  user:
    '【问题】{question}\n\n' +
    '【要求】请为上述问题拟定{n}个不同的检索查询，分别从问题涉及的不同人物、时间、制度、事件或别称入手，使检索结果能互相补充；每个查询简短具体，不要回答问题。\n' +
    OUTPUT_FORMATS.queries,
  slots: ['question', 'n'],
};
