import type { CallBound, ConversationBound, PromptBound, SlotBound } from '../methods/types.js';
import { CONTEXT_END } from '../prompting/contextBlock.js';
import { NO_CONTEXT_TEXT } from '../prompting/templateStrategy.js';
import { estimateTokens } from '../text/tokenCounter.js';
import type { ChatMessage } from '../prompting/types.js';
import type { PassageLimit } from './passageBounds.js';

/**
 * Bounds of one answer's model calls and prompt tokens from a method's declared calls
 * (`RagMethod.planCalls`). Sound for the token estimate the run counts with (`estimateTokens`):
 * it is subadditive (the tokens of a text are at most the sum of its parts' — one more per cut for
 * the rounding of non-CJK characters) and never grows when characters are removed (filling trims
 * and collapses blank lines), so a prompt is at most its template's fixed text plus what fills each
 * placeholder at most; at least, the Han characters of the fixed text and of what is known.
 */

/** What the bounds need of a condition: its k, its passages' limit, the model's maxTokens and how to count an exact prompt. */
export interface BoundInputs {
  k: number;
  passages: PassageLimit | null;
  maxTokens: number | undefined;
  /** The setting that bounds a model output (`models[0].maxTokens`), for the reason of a null max. */
  maxTokensSetting: string;
  /** Tokens of a prompt built exactly (text by the estimate, page images by the generator's formula). */
  countPrompt: (messages: ChatMessage[]) => number;
}

/** A figure's bounds; `max` null with the reason where nothing bounds it. */
export interface Bound {
  min: number;
  max: number | null;
  unbounded?: string[];
}

const HAN = /\p{Script=Han}/gu;
const hanCount = (text: string) => text.match(HAN)?.length ?? 0;
/** Slack for each cut of a text into parts (the rounding of `ceil(other / 4)` per part). */
const CUT = 1;
const unboundedBy = (reason: string): Bound => ({ min: 0, max: null, unbounded: [reason] });

/** The sum of two bounds (null max if either has one, with both reasons). */
export const addBounds = (a: Bound, b: Bound): Bound => ({
  min: a.min + b.min,
  max: a.max === null || b.max === null ? null : a.max + b.max,
  ...(a.unbounded || b.unbounded ? { unbounded: [...new Set([...(a.unbounded ?? []), ...(b.unbounded ?? [])])] } : {}),
});

/** Extra tokens the digits of entry numbers past `【资料1】` can add (ceil(digits / 4) at most, by subadditivity). */
const numberTokens = (entries: number) => Math.ceil(String(Math.max(1, entries)).length / 4);

function passageBlockBound(count: number, budget: number | null, ids: boolean, inputs: BoundInputs): Bound {
  const empty = estimateTokens(NO_CONTEXT_TEXT);
  if (count === 0) return { min: 0, max: empty };
  const limit = inputs.passages;
  if (!limit) return unboundedBy('passages without a retriever');
  if ('unknown' in limit) return unboundedBy(limit.unknown);
  const each = (ids ? limit.longest.entryWithId : limit.longest.entry) + numberTokens(count) + CUT;
  // The budget counts each formatted entry with its separator; the end marker is outside it.
  const entries = Math.min(count * each, budget ?? Infinity);
  return { min: 0, max: Math.max(empty, entries + estimateTokens(CONTEXT_END) + CUT) };
}

function slotBound(slot: SlotBound, inputs: BoundInputs): Bound {
  if (typeof slot === 'string') return { min: hanCount(slot), max: estimateTokens(slot) + CUT };
  // Parts written one after another: at most the sum of their bounds, one cut each.
  if ('sum' in slot) return slot.sum.reduce<Bound>((bound, part) => addBounds(bound, addBounds(slotBound(part, inputs), { min: 0, max: CUT })), { min: 0, max: 0 });
  if ('passages' in slot) return passageBlockBound(slot.passages, slot.ids ? null : slot.params.contextBudget, slot.ids === true, inputs);
  const none = estimateTokens(slot.none ?? '');
  if (slot.outputs === 0) return { min: 0, max: none + CUT };
  if (inputs.maxTokens === undefined) return unboundedBy(`set ${inputs.maxTokensSetting} to bound it`);
  // Each output with its fixed text around it, cut into up to four parts (text, output, text, separator).
  return { min: 0, max: Math.max(none, slot.outputs * (inputs.maxTokens + estimateTokens(slot.around ?? '') + 3 * CUT)) + CUT };
}

/** A template's fixed text and each placeholder it fills, by what fills it. */
function templateBound(template: string, slots: Record<string, SlotBound>, inputs: BoundInputs): Bound {
  let bound: Bound = { min: 0, max: 0 };
  let last = 0;
  for (const match of template.matchAll(/\{(\w+)\}/g)) {
    const slot = slots[match[1]!];
    if (slot === undefined) continue;
    const fixed = template.slice(last, match.index);
    bound = addBounds(bound, { min: hanCount(fixed), max: estimateTokens(fixed) + CUT });
    bound = addBounds(bound, slotBound(slot, inputs));
    last = match.index! + match[0].length;
  }
  const rest = template.slice(last);
  return addBounds(bound, { min: hanCount(rest), max: estimateTokens(rest) });
}

function conversationBound({ conversation }: ConversationBound, inputs: BoundInputs): Bound {
  const fixed = inputs.countPrompt(conversation.fixed);
  if (inputs.maxTokens === undefined) return { min: fixed, max: null, unbounded: [`set ${inputs.maxTokensSetting} to bound it`] };
  const search = passageBlockBound(inputs.k, null, true, inputs);
  if (search.max === null) return { ...search, min: fixed };
  const other = Math.max(...conversation.otherReplies.map(estimateTokens));
  // Each tool call's arguments take at least one token of an output: at most maxTokens calls a turn.
  const callsPerTurn = inputs.maxTokens;
  const turn = inputs.maxTokens + CUT + callsPerTurn * (estimateTokens(conversation.callText) + 2 * CUT + other);
  const searches = Math.min(conversation.searches, conversation.turns * callsPerTurn) * Math.max(search.max, other);
  return { min: fixed, max: fixed + conversation.turns * turn + searches };
}

function promptBound(prompt: PromptBound | ConversationBound, inputs: BoundInputs): Bound {
  if ('messages' in prompt) {
    const tokens = inputs.countPrompt(prompt.messages);
    return { min: tokens, max: tokens };
  }
  if ('conversation' in prompt) return conversationBound(prompt, inputs);
  return addBounds(templateBound(prompt.prompt.system, prompt.slots, inputs), templateBound(prompt.prompt.user, prompt.slots, inputs));
}

/** One call: the least and the most of its alternative prompts. */
function callBound(call: CallBound, inputs: BoundInputs): Bound {
  const each = call.prompts.map((p) => promptBound(p, inputs));
  const reasons = [...new Set(each.flatMap((b) => b.unbounded ?? []))];
  return {
    min: Math.min(...each.map((b) => b.min)),
    max: each.some((b) => b.max === null) ? null : Math.max(...each.map((b) => b.max!)),
    ...(reasons.length ? { unbounded: reasons } : {}),
  };
}

/** One answer's calls (those always made, all of them) and prompt tokens (the always-made calls at least, every call at most). */
export function answerBounds(calls: CallBound[], inputs: BoundInputs): { calls: Bound; promptTokens: Bound } {
  let promptTokens: Bound = { min: 0, max: 0 };
  for (const call of calls) {
    const bound = callBound(call, inputs);
    promptTokens = addBounds(promptTokens, call.always ? bound : { ...bound, min: 0 });
  }
  return { calls: { min: calls.filter((c) => c.always).length, max: calls.length }, promptTokens };
}
