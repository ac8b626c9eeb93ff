import type { MethodPrompt } from '../prompts.js';

/**
 * The instruction a search-trained model gets (R1-Searcher, ReSearch, Search-R1: each paper's
 * system prompt, in Chinese; the tags are the protocol's). These models were trained with their own
 * prompt; a config can give it verbatim (`prompts.begin`), keeping the placeholders.
 */
export const beginPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手。回答问题时先在心中推理；推理中需要查证知识时，可以调用检索工具。',
  user:
    '请回答下面的史学问题。推理过程中若需要检索，写出 {queryOpen}检索词{queryClose}，检索结果会写在 {resultOpen}……{resultClose} 之间返回给你；' +
    '可以多次检索，最多 {maxSearches} 次。{answerRule}\n\n【问题】{question}\n\n【要求】{instructions}',
  slots: ['question', 'instructions', 'queryOpen', 'queryClose', 'resultOpen', 'resultClose', 'maxSearches', 'answerRule'],
};

/** The same with the transcript so far, for chat endpoints (which cannot continue a partial reply). */
export const continuePrompt: MethodPrompt = {
  system: beginPrompt.system,
  user: beginPrompt.user + '\n\n【已有推理】\n{reasoning}\n\n【继续】以上是你到目前为止的推理与检索结果，请从中断处接着写，不要重复已写的内容。',
  slots: [...beginPrompt.slots, 'reasoning'],
};

/** The answer rule of a protocol with answer tags, and of one without. */
export const answerRuleWith = (open: string, close: string) => `得出结论后，把最终答案写在 ${open}……${close} 之间。`;
export const ANSWER_RULE_PLAIN = '推理结束后直接给出最终答案。';
