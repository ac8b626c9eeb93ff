import { extractQuestion, parseContextBlock } from '../prompting/contextBlock.js';
import {
  candidateLimitOf,
  comparedSummary,
  FINAL_ANSWER_PREFIX,
  FOLLOW_UP_PREFIX,
  NO,
  NO_FOLLOW_UP,
  SECTIONS,
  sectionText,
  YES,
  type OutputKind,
} from '../prompting/taskFormat.js';
import { characterBigrams, parseOptions, questionClauses, pickWithin, rankSentences, sharedBigrams, splitIntoSentences } from './lexicalOverlap.js';

/** What the stand-in's step rules share with its plain answer rule. */
export interface StandInTools {
  params: { maxChars: number; minOverlap: number; condenseChars: number };
  normalise(text: string): string;
  declineFor(question: string): string;
  /** The plain rule: the context sentences that overlap the question most (or a decline). */
  answer(user: string): string;
}

const NOTHING_RELEVANT = '资料中没有与问题相关的内容。';

/** The question's bigrams, with the candidate's when the prompt is about one. */
function queryGrams(user: string, tools: StandInTools): Set<string> {
  const text = `${extractQuestion(user)}\n${sectionText(user, SECTIONS.candidate)}`;
  return characterBigrams(tools.normalise(text));
}

/** Material the prompt carries: its passages, or a summary to judge. */
function materialOf(user: string): string[] {
  const passages = parseContextBlock(user).map((e) => e.text);
  const summary = sectionText(user, SECTIONS.summary);
  return summary ? [...passages, summary] : passages;
}

/** Condense: the sentences that overlap the question (and candidate) most, within the budget, in their original order. */
function condense(user: string, tools: StandInTools): string {
  const ranked = rankSentences(materialOf(user), queryGrams(user, tools), tools.params.minOverlap, tools.normalise);
  const kept = pickWithin(ranked, tools.params.condenseChars).sort((a, b) => a.order - b.order);
  return kept.length ? kept.map((c) => c.sentence).join('') : NOTHING_RELEVANT;
}

/**
 * Decide: 是 when the prompt's own material has a sentence sharing enough bigrams with the
 * question (and candidate) — the material supports an answer; 否 otherwise. It has no knowledge
 * of its own, so without material it always says 否 (it cannot answer unaided).
 */
function decide(user: string, tools: StandInTools): string {
  const material = materialOf(user);
  if (material.length === 0) return NO;
  const candidate = sectionText(user, SECTIONS.candidate);
  if (candidate && candidate === tools.declineFor(extractQuestion(user))) return NO;
  const ranked = rankSentences(material, queryGrams(user, tools), tools.params.minOverlap, tools.normalise);
  return ranked.length ? YES : NO;
}

/** Candidates: the best distinct sentences, one per candidate, each within the answer budget. */
function candidates(user: string, tools: StandInTools): string {
  const limit = candidateLimitOf(user);
  const question = extractQuestion(user);
  const entries = parseContextBlock(user);
  // A multiple-choice question has one candidate: the plain rule's boxed letters.
  if (entries.length && parseOptions(question).length >= 2 && user.includes('\\boxed')) return `（1）${tools.answer(user)}`;
  const ranked = rankSentences(entries.map((e) => e.text), characterBigrams(tools.normalise(question)), tools.params.minOverlap, tools.normalise);
  const distinct = [...new Set(ranked.map((c) => c.sentence.slice(0, tools.params.maxChars)))].slice(0, limit);
  const list = distinct.length ? distinct : [tools.declineFor(question)];
  return list.map((c, i) => `（${i + 1}）${c}`).join('\n');
}

/** Choose: the summary sharing more bigrams with the question (ties: the first). */
function choose(user: string, tools: StandInTools): string {
  const grams = characterBigrams(tools.normalise(extractQuestion(user)));
  const [first, second] = ([1, 2] as const).map((n) => sharedBigrams(tools.normalise(sectionText(user, comparedSummary(n))), grams));
  return second! > first! ? '2' : '1';
}

/** Next step: the best passage sentence the reasoning does not state yet; when none is left, the final answer. */
function nextStep(user: string, tools: StandInTools): string {
  const reasoning = sectionText(user, SECTIONS.reasoning);
  const ranked = rankSentences(parseContextBlock(user).map((e) => e.text), characterBigrams(tools.normalise(extractQuestion(user))), tools.params.minOverlap, tools.normalise);
  const fresh = ranked.find((c) => !reasoning.includes(c.sentence));
  return fresh ? fresh.sentence : `${FINAL_ANSWER_PREFIX}${tools.answer(user)}`;
}

/** Follow-up: the question's first clause not asked yet (options excluded); none left → no follow-up. */
function followUp(user: string, _tools: StandInTools): string {
  const question = extractQuestion(user);
  const known = sectionText(user, SECTIONS.known);
  const asked = new Set(known.split('\n').filter((l) => l.startsWith(FOLLOW_UP_PREFIX)).map((l) => l.slice(FOLLOW_UP_PREFIX.length).trim()));
  const clauses = questionClauses(question);
  const next = clauses.find((c) => !asked.has(c));
  return next ? `${FOLLOW_UP_PREFIX}${next}` : NO_FOLLOW_UP;
}

/** Interrogative words and particles, dropped when a question becomes a statement or a query. */
const INTERROGATIVES = /(请解释|为什么|为何|如何|怎样|怎么|什么|哪些|哪个|哪里|哪一|何时|何人|何地|何种|多少|是否|谁|吗|呢|请问|试述|试论|简述)/g;

const withoutInterrogatives = (clause: string) => clause.replace(INTERROGATIVES, '').trim();

/**
 * Hypothesis: the stand-in knows nothing, so its "hypothetical passage" is the question restated
 * as a statement (its clauses without interrogatives) — what a passage answering it would share.
 */
function hypothesis(user: string, tools: StandInTools): string {
  const clauses = questionClauses(extractQuestion(user)).map(withoutInterrogatives).filter((c) => characterBigrams(c).size >= 1);
  return clauses.length ? `${clauses.join('，')}。` : tools.declineFor(extractQuestion(user));
}

/** Rewrite: the question's clauses without interrogatives, as one space-separated query. */
function rewrite(user: string, _tools: StandInTools): string {
  const question = extractQuestion(user);
  const terms = questionClauses(question).map(withoutInterrogatives).filter(Boolean);
  return terms.length ? terms.join(' ') : question.trim();
}

/** Queries: the whole rewritten query, then each clause on its own, distinct, at most n, numbered. */
function queries(user: string, tools: StandInTools): string {
  const limit = candidateLimitOf(user);
  const clauses = questionClauses(extractQuestion(user)).map(withoutInterrogatives).filter((c) => characterBigrams(c).size >= 2);
  const list = [...new Set([rewrite(user, tools), ...clauses])].slice(0, limit);
  return list.map((q, i) => `（${i + 1}）${q}`).join('\n');
}

/** Grade: 0–10, the share of the question's bigrams that the material's best sentence holds. */
function grade(user: string, tools: StandInTools): string {
  const grams = characterBigrams(tools.normalise(questionClauses(extractQuestion(user)).map(withoutInterrogatives).join('')));
  if (grams.size === 0) return '0';
  const best = Math.max(0, ...materialOf(user).flatMap((text) => splitIntoSentences(text)).map((s) => sharedBigrams(tools.normalise(s), grams)));
  return String(Math.round((10 * best) / grams.size));
}

const RULES: Record<OutputKind, (user: string, tools: StandInTools) => string> = {
  condense,
  decide,
  candidates,
  choose,
  'next-step': nextStep,
  'follow-up': followUp,
  hypothesis,
  rewrite,
  queries,
  grade,
};

/** The stand-in's reply to a method step's prompt, by the kind of output it asks for. */
export function answerStep(kind: OutputKind, user: string, tools: StandInTools): string {
  return RULES[kind](user, tools);
}
