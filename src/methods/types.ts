import type { BenchmarkItem } from '../benchmarks/types.js';
import type { BaseMessage } from '@langchain/core/messages';
import type { CallSettings, GenerationResult, ToolDefinition } from '../generation/types.js';
import type { ChatMessage, ContentPart } from '../prompting/types.js';
import type { RetrievedChunk } from '../retrieval/types.js';
import type { MethodCost, MethodNotes } from '../runFiles/trace.js';
import type { MethodPrompt } from './prompts.js';
import type { PassageParams } from './passages.js';

/**
 * What a method may do for one item: every call is a traced, costed step (calls made at once are
 * traced in the order asked), so a method states only its control flow. A step that fails throws
 * a MethodStepError naming it and the item fails as a whole: no partial answer is ever scored.
 */
export interface MethodContext {
  readonly item: BenchmarkItem;
  /** Passages one retrieval call returns (the condition's k); 0 when the condition does not retrieve. */
  readonly k: number;
  readonly signal?: AbortSignal;
  /** The run's model as its generator names it (for a refusal's message); absent where there is none (the dry-run plan). */
  readonly model?: string;
  /** Retrieves k passages for `query` (the item's own question is answered from the run's batched retrieval). */
  retrieve(query: string, label: string): Promise<RetrievedChunk[]>;
  /** Asks the model. `final`: the scored generation (empty: the empty-answer rule; an empty intermediate step fails). */
  generate(label: string, messages: ChatMessage[], options?: { final?: boolean; call?: CallSettings }): Promise<GenerationResult>;
  /** Continues a text through `/v1/completions` (no chat template), traced like `generate`; a generator without it stops the run. */
  complete(label: string, prompt: string, options?: { final?: boolean; call?: CallSettings }): Promise<GenerationResult>;
  /** One turn of a tool-calling conversation (the agent), traced like `generate`; an endpoint rejecting tools stops the run. */
  chatTurn(label: string, messages: BaseMessage[], tools: ToolDefinition[]): Promise<GenerationResult>;
  /** Scores texts against a query as the condition's retriever ranks (dense: its index's embedder; BM25: BM25). */
  relevance(query: string, texts: string[], label: string): Promise<number[]>;
  /** Records a step the method computes itself (a refiner's before/after figures). */
  record(kind: string, label: string, detail: Record<string, number | string | boolean>): void;
  /** Tokens of a text by the run's token counter (estimates where an endpoint reports none). */
  countTokens(text: string): number;
}

/** What a method hands back for one item. */
export interface MethodOutcome {
  /** The text the scorer sees. */
  answer: string;
  /** The final step's response, kept as the record's `response` (its `text` is the answer). */
  response: GenerationResult;
  /** The final prompt (the record's `prompt`; an agent's whole conversation, tool messages included). */
  prompt: { role: string; content: string | ContentPart[] }[];
  /** Chunk ids that reached the final prompt, in prompt order. */
  contextIds: string[];
  /** Retrieved chunks the final prompt's context budget dropped. */
  truncated: number;
  /** Per-item figures the summary aggregates (a flag's mean is a share: adaptive's `retrieved`). */
  notes?: MethodNotes;
  /** Passages from outside the condition's retriever (an external system's contexts): they join `retrieved` and its metrics. */
  passages?: RetrievedChunk[];
  /** Calls and tokens spent outside the run's generator (an external system's), added to the item's cost. */
  externalCost?: ExternalCost;
}

/** What a call to a system outside hisrag cost, as it reported it (or estimated: `estimatedTokens`). */
export type ExternalCost = { calls: number } & Pick<MethodCost, 'promptTokens' | 'completionTokens' | 'estimatedTokens' | 'cachedCalls' | 'rateLimited' | 'price'>;

/** A RAG method (or a single-shot prompting strategy): the stage between retrieval and generation. */
export interface RagMethod {
  readonly name: string;
  /** True when the method retrieves: it then runs once per retriever × k. */
  readonly usesRetrieval: boolean;
  /** Depths it runs at when neither its entry's `k:` nor `retrieval.k` names any (page strategies). */
  readonly defaultDepths?: readonly number[];
  /** True when it scores sentences with the retriever's relevance (extractive refine): the retriever must offer it. */
  readonly needsRelevance?: boolean;
  /** True when the method offers the model tools (agent): every model of the run must support tool calling. */
  readonly needsToolCalling?: boolean;
  /** Calls of the run's model one answer makes (the dry-run plan); `singleShot`: one prompt the plan builds exactly. */
  readonly calls?: { min: number; max: number; singleShot?: boolean; /** An external system: one request of its own per answer, at the tokens it reports. */ external?: boolean };
  /** Every model call one answer may make with the prompts it may have (the plan's bounds); `calls` must agree. */
  planCalls?(input: PlanInput): CallBound[] | Promise<CallBound[]>;
  /** Loads what the method needs beyond the item, once, with the run's items (longhisdoc-full reads OCR pages). */
  prepare?(items: BenchmarkItem[]): Promise<void>;
  /** Lines the run's log and description carry about what the method loaded (after `prepare`): a stand-in model declares itself here. */
  describe?(): string[];
  run(context: MethodContext): Promise<MethodOutcome>;
  /** Releases what the method opened itself (CRAG's fallback retriever and evaluator): called once when the run ends, however it ends. */
  close?(): Promise<void>;
}

/** What the plan knows of one answer before any call: the item, k, and the list retrieved for its question (null without retrieval). */
export interface PlanInput {
  item: BenchmarkItem;
  k: number;
  questionPassages: RetrievedChunk[] | null;
}

/**
 * What may fill a placeholder of a step's prompt, as the plan bounds it: a text known before any
 * call, at most `passages` retrieved passages as a context block, or at most `outputs` earlier model
 * outputs (each at most `maxTokens`) with `around` fixed text each, or `none` where there are none yet.
 */
export type SlotBound =
  | string
  | { passages: number; params: PassageParams; /** Titles carry the chunk id (the agent's search results): no budget, no pages. */ ids?: boolean }
  | { outputs: number; around?: string; none?: string }
  /** Several of the above written one after another into one placeholder (a reasoning transcript: outputs and results interleaved). */
  | { sum: SlotBound[] };

/** One prompt a call may have: built exactly as the run will (`messages`), or a step's template with bounded slots. */
export type PromptBound = { messages: ChatMessage[] } | { prompt: MethodPrompt; slots: Record<string, SlotBound> };

/**
 * A turn of a tool-calling conversation (the agent): its first messages, every earlier turn's output
 * (calls written with `callText`) and one tool reply per call: at most `searches` search results, the
 * others one of `otherReplies`.
 */
export interface ConversationBound {
  conversation: { fixed: ChatMessage[]; turns: number; callText: string; searches: number; otherReplies: string[] };
}

/** One model call of an answer, for the plan: its label, whether every answer makes it, and the prompts it may have (alternatives). */
export interface CallBound {
  label: string;
  always: boolean;
  prompts: (PromptBound | ConversationBound)[];
}
