import { z } from 'zod';
import { splitSentences } from '../chunking/sentences.js';
import { answerInstructions, AnswerInstructionsSchema } from '../prompting/answerInstructions.js';
import type { RegistryEntry } from '../registry.js';
import { createRetriever } from '../retrieval/createRetriever.js';
import type { HisragLangChainRetriever } from '../retrieval/langchain/langchainRetriever.js';
import { createRetrieverContext, RetrieverSpecSchema } from '../retrieval/registry.js';
import { rerankers } from '../rerank/registry.js';
import type { Reranker } from '../rerank/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import { passageBlock, PassageParamsShape } from './passages.js';
import { promptOverridesSchema, resolvePrompts, stepMessages } from './prompts.js';
import { answerPrompt } from './templates/answer.js';
import { gradePrompt } from './templates/crag.js';
import type { CallBound, MethodOutcome, PlanInput, RagMethod } from './types.js';

export const CragParamsSchema = z
  .object({
    /** A passage graded at or above this (0–1, the judge's 0–10 over 10) makes the retrieval Correct. */
    upper: z.number().min(0).max(1).default(0.6),
    /** Every passage graded below this makes it Incorrect; between the two: Ambiguous. */
    lower: z.number().min(0).max(1).default(0.2),
    /**
     * The retrieval evaluator: absent, the model grades each passage (one call a passage); a reranker
     * (`{ name: cross-encoder, model }`, the rerank stage's registry) scores them instead, each score
     * through a logistic to 0–1 (a cross-encoder's logit, as the paper's fine-tuned T5 evaluator scores).
     */
    evaluator: z.object({ name: z.string().min(1) }).catchall(z.unknown()).optional(),
    /** The retriever searched when the retrieval is Incorrect or Ambiguous (the paper's web search): `{ name, index, … }`. */
    fallback: RetrieverSpecSchema,
    /** Passages the fallback returns; default the condition's k. */
    fallbackK: z.number().int().positive().optional(),
    /** Knowledge refinement: strips (sentences) kept, the best by the retriever's relevance to the question, in their order. */
    keepStrips: z.number().int().positive().default(8),
    ...PassageParamsShape,
    instructions: AnswerInstructionsSchema.optional(),
    prompts: promptOverridesSchema(['grade', 'answer']),
  })
  .strict()
  .refine((p) => p.lower <= p.upper, { message: 'lower must not exceed upper', path: ['lower'] });
export type CragParams = z.infer<typeof CragParamsSchema>;

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
 * 1–2 retrievals, k + 1 generations (1 with a cross-encoder evaluator).
 */
export const cragMethod: RegistryEntry<CragParams, RagMethod, void> = {
  name: 'crag',
  description: 'CRAG: an LLM (or a cross-encoder) grades each passage; correct → refine strips, incorrect → fallback retriever, ambiguous → both; 1–2 retrievals, k + 1 generations',
  params: CragParamsSchema,
  create(params) {
    const prompts = resolvePrompts('crag', { grade: gradePrompt, answer: answerPrompt }, params.prompts);
    const gradeMessages = (question: string, passage: RetrievedChunk) => stepMessages(prompts.grade, { context: passageBlock([passage], params).block, question });
    let fallback: Promise<HisragLangChainRetriever> | undefined;
    const openFallback = () => (fallback ??= createRetriever(params.fallback, createRetrieverContext(), 'crag.fallback'));
    // Checked now (config time), built on first use.
    if (params.evaluator) rerankers.parse(params.evaluator, 'crag.evaluator');
    let evaluator: Promise<Reranker> | undefined;
    const openEvaluator = (spec: NonNullable<CragParams['evaluator']>) => (evaluator ??= rerankers.create(spec, undefined, 'crag.evaluator'));
    const logistic = (x: number) => 1 / (1 + Math.exp(-x));
    return {
      name: 'crag',
      usesRetrieval: true,
      needsRelevance: true,
      // The model grades every retrieved passage (k calls, known only with k; a reranker evaluator: none), then answers.
      calls: params.evaluator ? { min: 1, max: 1 } : { min: 1, max: Number.POSITIVE_INFINITY },
      planCalls: ({ item, k, questionPassages }: PlanInput): CallBound[] => [
        ...(params.evaluator ? [] : (questionPassages ?? [])).map((passage, i) => ({ label: `grade[${i + 1}]`, always: true, prompts: [{ messages: gradeMessages(item.question, passage) }] })),
        {
          label: 'answer',
          always: true,
          // Refined strips of at most k passages, then at most fallbackK fallback passages.
          prompts: [{ prompt: prompts.answer, slots: { context: { passages: k + (params.fallbackK ?? k), params }, question: item.question, instructions: answerInstructions(item, params.instructions) } }],
        },
      ],
      async prepare() {
        // Opened before the first question, so that a wrong index fails the run at once.
        await openFallback();
        if (params.evaluator) await openEvaluator(params.evaluator);
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
          grades.push(...scored.scores.map(logistic));
          context.record('grade', params.evaluator.name, { passages: passages.length, scores: scored.scores.map((x) => x.toFixed(3)).join(','), ms: Date.now() - started });
        } else {
          for (const [i, passage] of passages.entries()) {
            const reply = await context.generate(`grade[${i + 1}]`, gradeMessages(item.question, passage));
            const grade = parseGrade(reply.text);
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

        const knowledge: RetrievedChunk[] = [];
        if (label !== 'incorrect') {
          // Decompose: the passages not graded irrelevant, split into strips; recompose: the best strips, in order, under their passages.
          const kept = passages.filter((_, i) => grades[i]! >= params.lower);
          const strips = kept.flatMap((chunk, index) => splitSentences(chunk.text).map((s) => ({ index, text: s.text.trim() }))).filter((s) => s.text);
          const scores = strips.length ? await context.relevance(item.question, strips.map((s) => s.text), 'score-strips') : [];
          const chosen = new Set(
            strips
              .map((strip, order) => ({ order, score: scores[order]! }))
              .sort((a, b) => b.score - a.score || a.order - b.order)
              .slice(0, params.keepStrips)
              .map((s) => s.order),
          );
          for (const [index, chunk] of kept.entries()) {
            const mine = strips.filter((s, order) => s.index === index && chosen.has(order));
            if (mine.length) knowledge.push({ ...chunk, text: mine.map((s) => s.text).join('') });
          }
          context.record('refine', 'strips', { passages: kept.length, strips: strips.length, kept: chosen.size, charsBefore: kept.reduce((n, c) => n + c.text.length, 0), charsAfter: knowledge.reduce((n, c) => n + c.text.length, 0) });
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
        const messages = stepMessages(prompts.answer, { context: placed.block, question: item.question, instructions: answerInstructions(item, params.instructions) });
        const response = await context.generate('answer', messages, { final: true });
        const seen = new Set(passages.map((c) => c.id));
        return {
          answer: response.text,
          response,
          prompt: messages,
          contextIds: placed.ids,
          truncated: placed.dropped,
          passages: external.filter((c) => !seen.has(c.id)),
          notes: { correct: label === 'correct', ambiguous: label === 'ambiguous', incorrect: label === 'incorrect', bestGrade: grades.length ? Math.max(...grades) : 0 },
        };
      },
    };
  },
};
