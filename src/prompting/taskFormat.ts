import { textUntilNextMarker } from './contextBlock.js';

/**
 * The sections and output formats of RAG methods' intermediate-step prompts: like `contextBlock.ts`,
 * one textual protocol that the method templates write and the offline stand-in reads back (custom
 * templates may drop the markers; the stand-in then answers by plain extraction).
 */

/** The line that says what the reply must be: `【输出】…`. */
export const OUTPUT_MARKER = '【输出】';

/** Kinds of reply a method step asks for, and the output line that asks for each. */
export const OUTPUT_FORMATS = {
  /** A condensed version of the material, with respect to the question. */
  condense: '【输出】摘要：只保留与问题相关的史实，不作回答',
  /** 是 or 否: does the material in the prompt (if any) support answering / the candidate? */
  decide: '【输出】是或否：只回答“是”或“否”',
  /** Up to N candidate answers, one per line, numbered （1）（2）… */
  candidates: '【输出】候选答案：至多{n}个，每行一个，以（1）（2）……编号',
  /** The number of the better of two summaries. */
  choose: '【输出】编号：只回答“1”或“2”',
  /** One more sentence of reasoning, or the final answer after FINAL_ANSWER_PREFIX. */
  'next-step': '【输出】下一句推理：只写一句；若已能作答，写“所以答案是：”后接最终答案',
  /** One follow-up question after FOLLOW_UP_PREFIX, or NO_FOLLOW_UP. */
  'follow-up': '【输出】追问：写“追问：”后接一个子问题；若无需追问，只写“无需追问”',
  /** A hypothetical passage that would answer the question (HyDE). */
  hypothesis: '【输出】假设段落：写一段可能回答问题的史料式段落，不加说明',
  /** One search query for the question (query rewriting). */
  rewrite: '【输出】检索式：只写一个检索查询，不作回答',
  /** Up to N search queries, one per line, numbered （1）（2）… (multi-query / RAG-Fusion). */
  queries: '【输出】多个检索式：至多{n}个，每行一个，以（1）（2）……编号',
  /** A 0–10 relevance grade of one passage to the question (CRAG's retrieval evaluator). */
  grade: '【输出】相关度：只写0到10之间的一个整数，10为直接相关，0为无关',
} as const;
export type OutputKind = keyof typeof OUTPUT_FORMATS;

/** Sections a method prompt may carry besides `【资料N】` and `【问题】`. */
export const SECTIONS = {
  /** Reasoning sentences so far (IRCoT). */
  reasoning: '【已有推理】',
  /** The candidate answer a summary or validity check is about (SuRe). */
  candidate: '【候选答案】',
  /** A summary to judge (SuRe validity check). */
  summary: '【摘要】',
  /** Follow-up questions and their intermediate answers (Self-Ask). */
  known: '【已知】',
} as const;

/** Pairwise comparison sections: `【摘要1】`, `【摘要2】`. */
export const comparedSummary = (n: 1 | 2) => `【摘要${n}】`;

export const FINAL_ANSWER_PREFIX = '所以答案是：';
export const FOLLOW_UP_PREFIX = '追问：';
export const NO_FOLLOW_UP = '无需追问';
export const YES = '是';
export const NO = '否';

/** The output kind a prompt asks for, or null (a plain answer). */
export function outputKindOf(text: string): OutputKind | null {
  const at = text.lastIndexOf(OUTPUT_MARKER);
  if (at < 0) return null;
  const line = text.slice(at).split('\n')[0]!;
  for (const [kind, format] of Object.entries(OUTPUT_FORMATS) as [OutputKind, string][]) {
    const head = format.split('：')[0]!;
    if (line.startsWith(head)) return kind;
  }
  return null;
}

/** The most candidates a `candidates` output line allows (`至多3个`), or the fallback. */
export function candidateLimitOf(text: string, fallback = 3): number {
  const found = /至多(\d+)个/.exec(text.slice(Math.max(0, text.lastIndexOf(OUTPUT_MARKER))));
  return found ? Number(found[1]) : fallback;
}

/**
 * The text of a section: from its marker to the next line that starts a `【…】` marker (the
 * marker's own line included after the marker); '' when absent.
 */
export function sectionText(text: string, marker: string): string {
  const at = text.indexOf(marker);
  return at < 0 ? '' : textUntilNextMarker(text.slice(at + marker.length));
}
