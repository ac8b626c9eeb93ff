import { assertLiveGenerator } from '../generation/batchQueue.js';
import { generators } from '../generation/registry.js';
import type { Generator } from '../generation/types.js';
import type { TextChatMessage } from '../prompting/types.js';
import { parseListwiseAnswer } from './listwiseAnswer.js';
import type { Reranker, RerankOutcome } from './types.js';
import type { LlmRerankerParams } from './llmRerankerParams.js';

export { LlmRerankerParamsSchema, type LlmRerankerParams } from './llmRerankerParams.js';

/** The listwise prompt (RankGPT-style): number the candidates, ask for their ids, best first. */
export function listwisePrompt(query: string, passages: string[], maxChars: number): TextChatMessage[] {
  const listed = passages.map((p, i) => `[${i + 1}] ${p.length > maxChars ? `${p.slice(0, maxChars)}…` : p}`).join('\n');
  return [
    {
      role: 'system',
      content: '你是检索结果排序助手。根据与问题的相关程度，对候选段落从最相关到最不相关排序。只输出段落编号，格式如 [2] > [1] > [3]，不要解释。',
    },
    {
      role: 'user',
      content: `问题：${query}\n\n候选段落（共 ${passages.length} 段）：\n${listed}\n\n请按相关程度从高到低输出全部 ${passages.length} 个编号，格式：[编号] > [编号] > …`,
    },
  ];
}

/**
 * Reranks by asking a chat model to order the candidate ids (listwise). An answer that cannot
 * be used — no valid id, or a request that failed after the generator's own retries — keeps
 * the first-stage order and is reported as a fallback (counted by the reranked retriever, and
 * marked on the recorded chunks); ids the model leaves out follow in first-stage order. Scores
 * are positions: (n − position) / n, 1 for the top candidate.
 */
export async function createLlmReranker(params: LlmRerankerParams): Promise<Reranker> {
  assertLiveGenerator(params.generator, 'rerank.generator', 'the listwise reranker');
  const generator: Generator = await generators.create(params.generator, undefined, 'rerank.generator');
  return {
    name: 'llm',
    async rerank(query, passages): Promise<RerankOutcome> {
      const n = passages.length;
      const keep = (why: string): RerankOutcome => ({ scores: passages.map((_, i) => (n - i) / n), fallback: why });
      if (n === 0) return { scores: [] };
      let answer: string;
      try {
        answer = (await generator.generate(listwisePrompt(query, passages, params.maxPassageChars))).text;
      } catch (error) {
        return keep(`reranking request failed: ${(error as Error).message}`);
      }
      const parsed = parseListwiseAnswer(answer, n);
      if ('error' in parsed) return keep(`unusable reranking answer: ${parsed.error}`);
      const scores: number[] = new Array(n);
      parsed.order.forEach((passageIndex, position) => (scores[passageIndex] = (n - position) / n));
      return { scores };
    },
    describe: () => ({ name: 'llm', generator: generator.describe(), maxPassageChars: params.maxPassageChars, score: '(n - position) / n' }),
    async close() {},
  };
}
