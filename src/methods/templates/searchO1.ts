import { OUTPUT_FORMATS } from '../../prompting/taskFormat.js';
import type { MethodPrompt } from '../prompts.js';

/**
 * Search-o1's prompts (Li et al. 2025, arXiv 2501.05366, Appendix: the instruction for the reasoning
 * model and the Reason-in-Documents prompt), in Chinese for the benchmarks here. `{queryOpen}` …
 * are the tags the method is configured with (`<|begin_search_query|>` … by default).
 */

/** The reasoning model's instruction: reason, and write a query between the tags whenever knowledge is missing. */
export const beginPrompt: MethodPrompt = {
  system: '你是一名擅长推理的历史学研究助手。你可以在推理过程中检索资料来补充所缺的知识。',
  user:
    '你需要回答一个史学问题。推理时，若发现缺少某项知识，可以发起检索：写出 {queryOpen}检索词{queryClose}，' +
    '系统会检索并把整理后的结果写在 {resultOpen}……{resultClose} 之间，然后你继续推理。' +
    '最多可检索 {maxSearches} 次。推理结束后给出最终答案。\n\n【问题】{question}\n\n【要求】{instructions}',
  slots: ['question', 'instructions', 'queryOpen', 'queryClose', 'resultOpen', 'resultClose', 'maxSearches'],
};

/** The same instruction with the reasoning so far (chat endpoints, which cannot continue a partial reply): continue from where it stops. */
export const continuePrompt: MethodPrompt = {
  system: beginPrompt.system,
  user:
    beginPrompt.user +
    '\n\n【已有推理】\n{reasoning}\n\n【继续】以上是你到目前为止的推理（含检索结果），请从中断处接着推理，不要重复已写的内容。',
  slots: [...beginPrompt.slots, 'reasoning'],
};

/**
 * Reason-in-Documents: the retrieved documents condensed for the current query, given the
 * question and the reasoning so far; what goes back between the result tags.
 */
export const reasonInDocumentsPrompt: MethodPrompt = {
  system: '你是一名历史学研究助手，负责阅读检索到的资料，为正在进行的推理提取有用的信息。',
  user:
    '【已有推理】\n{reasoning}\n\n【检索词】{query}\n\n【检索到的资料】\n{documents}\n\n【问题】{question}\n\n' +
    '【要求】请结合已有推理与当前检索词，分析这些资料：提取对回答问题、推进推理有帮助的史实，写成简洁准确的一段话；' +
    '若资料中没有有用的信息，写“未找到有用信息”。\n' +
    OUTPUT_FORMATS.condense,
  slots: ['reasoning', 'query', 'documents', 'question'],
};

/** What the reasoning section says before anything was written. */
export const NOTHING_REASONED_YET = '（尚无）';
