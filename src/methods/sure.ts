import { answerInstructions } from '../prompting/answerInstructions.js';
import { passageBlock } from './passages.js';
import { methodFactory } from './reader.js';
import { stepMessages } from './prompts.js';
import { parseChoice, parseDecision } from './replies.js';
import { candidatesPrompt, rankPrompt, summaryPrompt, validityPrompt } from './templates/sure.js';
import type { CallBound, MethodOutcome, PlanInput } from './types.js';
import { sureSchema } from './sureSchema.js';

const NUMBERED = /^\s*(?:[（(]\s*\d+\s*[)）]|\d+\s*[.、．:：)）])\s*(.+)$/;

/** Candidate answers of a reply: its numbered lines (`（1）…`, `1. …`), else the whole reply as one. */
export function parseCandidates(text: string, limit: number): string[] {
  const numbered = text.split('\n').map((line) => NUMBERED.exec(line)?.[1]?.trim()).filter((c): c is string => Boolean(c));
  const list = numbered.length ? numbered : text.trim() ? [text.trim()] : [];
  return [...new Set(list)].slice(0, limit);
}

/**
 * SuRe (Kim et al. 2024, "Summarizing Retrievals using Answer Candidates for Open-domain QA of
 * LLMs"): candidate answers from the k passages; for each, a summary of the passages that
 * supports it; a validity check of each summary; pairwise ranking of the summaries. Each
 * candidate scores its validity (1/0) plus its share of pairwise wins; the best candidate is the
 * answer (ties: the earlier candidate). One retrieval, 1 + 2n + n(n−1)/2 generations.
 */
export const createSureMethod = methodFactory({
  ...sureSchema,
  prompts: { candidates: candidatesPrompt, summary: summaryPrompt, validity: validityPrompt, rank: rankPrompt },
  create(params, prompts) {
    return {
      // One candidate parsed: candidates, summary, validity; n candidates: 1 + 2n + n(n − 1)/2.
      calls: { min: 3, max: 1 + 2 * params.candidates + (params.candidates * (params.candidates - 1)) / 2 },
      // Every prompt holds the question's own passage block (known before any call) and candidates or summaries (each at most an output).
      planCalls: ({ item, questionPassages }: PlanInput): CallBound[] => {
        const n = params.candidates;
        const block = passageBlock(questionPassages ?? [], params).block;
        const output = { outputs: 1 };
        const calls: CallBound[] = [
          { label: 'candidates', always: true, prompts: [{ messages: stepMessages(prompts.candidates, { context: block, question: item.question, instructions: answerInstructions(item, params.instructions), n }) }] },
        ];
        for (let i = 1; i <= n; i++) {
          calls.push({ label: `summary[${i}]`, always: i === 1, prompts: [{ prompt: prompts.summary, slots: { context: block, question: item.question, candidate: output } }] });
          calls.push({ label: `validity[${i}]`, always: i === 1, prompts: [{ prompt: prompts.validity, slots: { question: item.question, candidate: output, summary: output } }] });
        }
        for (let a = 1; a <= n; a++) {
          for (let b = a + 1; b <= n; b++) calls.push({ label: `rank[${a},${b}]`, always: false, prompts: [{ prompt: prompts.rank, slots: { question: item.question, summary1: output, summary2: output } }] });
        }
        return calls;
      },
      async run(context): Promise<MethodOutcome> {
        const { item } = context;
        const passages = await context.retrieve(item.question, 'retrieve');
        const placed = passageBlock(passages, params);
        const candidatesMessages = stepMessages(prompts.candidates, {
          context: placed.block,
          question: item.question,
          instructions: answerInstructions(item, params.instructions),
          n: params.candidates,
        });
        const listed = await context.generate('candidates', candidatesMessages);
        const candidates = parseCandidates(listed.text, params.candidates);
        if (candidates.length === 0) throw new Error('sure: the candidates step gave no candidate answer');
        const summaries: string[] = [];
        const valid: number[] = [];
        for (const [i, candidate] of candidates.entries()) {
          const summary = await context.generate(`summary[${i + 1}]`, stepMessages(prompts.summary, { context: placed.block, question: item.question, candidate }));
          summaries.push(summary.text.trim());
          const check = await context.generate(`validity[${i + 1}]`, stepMessages(prompts.validity, { question: item.question, candidate, summary: summary.text.trim() }));
          valid.push(parseDecision(check.text) === true ? 1 : 0);
        }
        const wins = candidates.map(() => 0);
        for (let a = 0; a < candidates.length; a++) {
          for (let b = a + 1; b < candidates.length; b++) {
            const reply = await context.generate(`rank[${a + 1},${b + 1}]`, stepMessages(prompts.rank, { question: item.question, summary1: summaries[a]!, summary2: summaries[b]! }));
            const choice = parseChoice(reply.text);
            if (choice === 1) wins[a]!++;
            else if (choice === 2) wins[b]!++;
          }
        }
        const pairs = Math.max(1, candidates.length - 1);
        const scores = candidates.map((_, i) => valid[i]! + wins[i]! / pairs);
        const best = scores.indexOf(Math.max(...scores));
        const answer = candidates[best]!;
        context.record('select', 'best-candidate', { candidates: candidates.length, chosen: best + 1, score: scores[best]!, valid: valid.reduce((a, b) => a + b, 0) });
        return {
          answer,
          response: { text: answer, raw: listed.raw, ...(listed.usage ? { usage: listed.usage } : {}) },
          prompt: candidatesMessages,
          contextIds: placed.ids,
          truncated: placed.dropped,
          notes: { candidates: candidates.length, validCandidates: valid.reduce((a, b) => a + b, 0) },
        };
      },
    };
  },
});
