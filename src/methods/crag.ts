import { createRetriever } from '../retrieval/createRetriever.js';
import type { HisragLangChainRetriever } from '../retrieval/langchain/langchainRetriever.js';
import { createRetrieverContext } from '../retrieval/registry.js';
import { sigmoid } from '../rerank/crossEncoderReranker.js';
import { rerankers } from '../rerank/registry.js';
import type { Reranker } from '../rerank/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { passageBlock } from './passages.js';
import { stepMessages } from './prompts.js';
import { answerCall, bestSentences, methodFactory, readPassages } from './reader.js';
import { answerPrompt } from './templates/answer.js';
import { gradePrompt } from './templates/crag.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { cragSchema, type CragParams } from './cragSchema.js';

export type CragLabel = 'correct' | 'ambiguous' | 'incorrect';

/** The judge's 0–10 grade as 0–1; null for a reply with no number (counted, graded 0). */
export function parseGrade(text: string): number | null {
  const found = /(?<![\d.])(10|\d)(?:\.\d+)?(?![\d])/.exec(text.replace(/<think>[\s\S]*?<\/think>/g, '').replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0)));
  return found ? Math.min(10, Number(found[0])) / 10 : null;
}

/** CRAG's action trigger: Correct when any grade reaches `upper`, Incorrect when all are below `lower`, else Ambiguous. */
export function cragLabel(grades: number[], upper: number, lower: number): CragLabel {
  if (grades.some((g) => g >= upper)) return 'correct';
  if (grades.every((g) => g < lower)) return 'incorrect';
  return 'ambiguous';
}

/**
 * CRAG (Yan et al. 2024, "Corrective Retrieval Augmented Generation"): a retrieval evaluator grades
 * each of the k passages (an LLM judge, 0–10, or a cross-encoder through the rerank stage's
 * registry, its logit through a logistic — the paper fine-tunes T5 as a scorer), and the grades
 * trigger one of three actions by an upper and a lower threshold. Correct → knowledge refinement:
 * the passages not graded irrelevant are decomposed into strips (sentences), the strips scored
 * against the question (by the retriever's relevance, where the paper reuses its evaluator) and the
 * best kept, recomposed in order. Incorrect → the retrieval is discarded and the fallback retriever
 * named in the config searches instead (the paper's web search; e.g. zhwiki when the primary corpus
 * is one book). Ambiguous → both. The trace records every grade, the label and the branch run.
 * 1–2 retrievals, k + 1 generations (1 with a cross-encoder evaluator), the k grades asked at once.
 */
export const createCragMethod = methodFactory({
  ...cragSchema,
  prompts: { grade: gradePrompt, answer: answerPrompt },
  create(params, prompts) {
    const gradeMessages = (question: string, passage: RetrievedChunk) => stepMessages(prompts.grade, { context: passageBlock([passage], params).block, question });
    let fallback: Promise<HisragLangChainRetriever> | undefined;
    const openFallback = () => (fallback ??= createRetriever(params.fallback, createRetrieverContext(), 'crag.fallback'));
    // Checked now (config time), built on first use.
    if (params.evaluator) rerankers.parse(params.evaluator, 'crag.evaluator');
    let evaluator: Promise<Reranker> | undefined;
    const openEvaluator = (spec: NonNullable<CragParams['evaluator']>) => (evaluator ??= rerankers.create(spec, undefined, 'crag.evaluator'));
    return {
      needsRelevance: true,
      // The model grades every retrieved passage (k calls, known only with k; a reranker evaluator: none), then answers.
      calls: params.evaluator ? { min: 1, max: 1 } : { min: 1, max: Number.POSITIVE_INFINITY },
      planCalls: ({ item, k, questionPassages }: PlanInput): CallBound[] => [
        ...(params.evaluator ? [] : (questionPassages ?? [])).map((passage, i) => ({ label: `grade[${i + 1}]`, always: true, prompts: [{ messages: gradeMessages(item.question, passage) }] })),
        // Refined strips of at most k passages, then at most fallbackK fallback passages.
        answerCall(prompts.answer, item, k + (params.fallbackK ?? k), params),
      ],
      async prepare() {
        // Opened before the first question, so that a wrong index fails the run at once.
        await openFallback();
        if (params.evaluator) await openEvaluator(params.evaluator);
      },
      async close() {
        // What prepare or a question opened; a second close finds nothing left.
        const opened = [fallback, evaluator];
        fallback = evaluator = undefined;
        await Promise.all(opened.map(async (opening) => (await opening?.catch(() => undefined))?.close()));
      },
      describe: () => [`crag: fallback retriever ${params.fallback.name}${typeof params.fallback.index === 'string' ? ` over ${params.fallback.index}` : ''} for incorrect and ambiguous retrievals; evaluator ${params.evaluator ? `${params.evaluator.name}${typeof params.evaluator.model === 'string' ? ` ${params.evaluator.model}` : ''}` : 'the model (one grade a passage)'} (upper ${params.upper}, lower ${params.lower})`],
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const passages = await context.retrieve(item.question, 'retrieve');
        const grades: number[] = [];
        let unparsed = 0;
        if (params.evaluator) {
          const started = Date.now();
          const scored = passages.length ? await (await openEvaluator(params.evaluator)).rerank(item.question, passages.map((p) => p.text)) : { scores: [] };
          // A reranker that could not score (an LLM's unusable list) leaves the first-stage order: no grade can be read from it.
          if (scored.fallback) throw new Error(`crag: the evaluator ${params.evaluator.name} could not score the passages: ${scored.fallback}`);
          grades.push(...scored.scores.map(sigmoid));
          context.record('grade', params.evaluator.name, { passages: passages.length, scores: scored.scores.map((x) => x.toFixed(3)).join(','), ms: Date.now() - started });
        } else {
          // The k grades are independent: asked at once (the endpoint's limiter bounds how many are in
          // flight; a batch round takes all k), traced in passage order by the method context.
          const replies = await Promise.allSettled(passages.map((passage, i) => context.generate(`grade[${i + 1}]`, gradeMessages(item.question, passage))));
          for (const reply of replies) {
            // Every call is settled (and traced) first; the item fails with the first failed grade.
            if (reply.status === 'rejected') throw reply.reason;
            const grade = parseGrade(reply.value.text);
            if (grade === null) unparsed++;
            grades.push(grade ?? 0);
          }
        }
        const label = cragLabel(grades, params.upper, params.lower);
        const branch = label === 'correct' ? 'refine' : label === 'incorrect' ? 'fallback' : 'refine+fallback';
        context.record('evaluate', 'retrieval', {
          label,
          branch,
          evaluator: params.evaluator?.name ?? 'llm',
          grades: grades.map((g) => g.toFixed(params.evaluator ? 3 : 1)).join(','),
          best: grades.length ? Math.max(...grades) : 0,
          upper: params.upper,
          lower: params.lower,
          unparsed,
        });

        let knowledge: RetrievedChunk[] = [];
        if (label !== 'incorrect') {
          // Decompose the passages not graded irrelevant into strips; recompose the best strips, in order, under their passages.
          const kept = passages.filter((_, i) => grades[i]! >= params.lower);
          const strips = await bestSentences(context, kept, params.keepStrips, 'score-strips');
          knowledge = strips.refined;
          context.record('refine', 'strips', { passages: kept.length, strips: strips.sentences, kept: strips.kept, charsBefore: kept.reduce((n, c) => n + c.text.length, 0), charsAfter: knowledge.reduce((n, c) => n + c.text.length, 0) });
        }
        let external: RetrievedChunk[] = [];
        if (label !== 'correct') {
          const retriever = await openFallback();
          const started = Date.now();
          external = await retriever.retrieve({ text: item.question, itemId: item.id }, params.fallbackK ?? context.k);
          context.record('retrieve-fallback', 'fallback', {
            retriever: params.fallback.name,
            query: item.question,
            passages: external.length,
            ids: external.map((c) => c.id).join(','),
            ms: Date.now() - started,
          });
        }
        // A fallback passage the primary list also had is read once.
        const primaryIds = new Set(knowledge.map((c) => c.id));
        const placed = passageBlock([...knowledge, ...external.filter((c) => !primaryIds.has(c.id))], params);
        const outcome = await readPassages(context, prompts.answer, placed, params, { correct: label === 'correct', ambiguous: label === 'ambiguous', incorrect: label === 'incorrect', bestGrade: grades.length ? Math.max(...grades) : 0 });
        // Fallback passages the primary retrieval did not return join the item's retrieved set.
        const seen = new Set(passages.map((c) => c.id));
        return { ...outcome, passages: external.filter((c) => !seen.has(c.id)) };
      },
    };
  },
});
