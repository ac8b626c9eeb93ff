import type { PromptTemplate } from './promptTemplate.js';

/** The line that starts the final answer in chain-of-thought prompts. */
export const FINAL_ANSWER_MARKER = '最终答案：';

/** What chain of thought asks for; also added to RAG prompts with `persona: cot`. */
export const COT_INSTRUCTION = `请先逐步分析：明确问题涉及的时代、人物与制度，梳理相关史实，再推出结论。分析完毕后另起一行，以“${FINAL_ANSWER_MARKER}”开头写出最终答案。`;

/** Chain of thought: reason step by step, then give the final answer after the marker. */
export const cotTemplate: PromptTemplate = {
  system: '你是一名历史学研究助手。回答前请先逐步分析推理，再给出结论。',
  user: `【问题】{question}\n\n【要求】${COT_INSTRUCTION}{instructions}`,
};
