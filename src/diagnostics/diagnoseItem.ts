import { createHash } from 'node:crypto';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { stripThink } from '../scoring/stripThink.js';
import { answerMetrics } from './claimMetrics.js';
import type { CallUsage, ClaimChecker, ClaimExtractor } from './claims/types.js';
import { evidenceOf } from './evidence.js';
import { benchmarkGold, type BenchmarkGold } from './goldClaims.js';
import { LabelStore } from './labelStore.js';
import { checkCandidates, rankCandidates, type Checked, type PairScorer, type PassageLabels } from './prefilter.js';
import type { ClaimLabel, DiagnosticsCost, FailedCheck, MatrixEntry, RecordDiagnostics } from '../runFiles/diagnosis.js';

export interface DiagnosisSettings {
  prefilter: 'hybrid' | 'relevance' | 'lexical' | 'none';
  topChunks: number;
}

/** What diagnosing needs, built once per diagnosis: the claim models, the label store and a scorer per retriever. */
export interface DiagnosisContext {
  extractor: ClaimExtractor;
  checker: ClaimChecker;
  store: LabelStore;
  settings: DiagnosisSettings;
  /** The prefilter's scorer for a record's retriever (lexical where the retriever has no relevance). */
  scorerFor(record: RunItemRecord): PairScorer;
  signal?: AbortSignal;
}

/** Calls sent, tokens used and time taken on behalf of one answer (time counted from the account's creation). */
class CostAccount {
  readonly startedAt = Date.now();
  extractorCalls = 0;
  checkerCallsSent = 0;
  promptTokens = 0;
  completionTokens = 0;
  estimated = false;

  add(usage: CallUsage, kind: 'extractor' | 'checker'): void {
    if (kind === 'extractor') this.extractorCalls += usage.calls;
    else this.checkerCallsSent += usage.calls;
    this.promptTokens += usage.promptTokens;
    this.completionTokens += usage.completionTokens;
    this.estimated ||= usage.estimated;
  }
}

const chunked = <T>(list: T[], size: number): T[][] => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

type BatchResult = { labels: ClaimLabel[]; error?: undefined } | { labels?: undefined; error: string };

/**
 * Labels claims through the store, a batch in flight awaited rather than sent twice. Batches are cut
 * before any cache lookup, so what is sent never depends on what happened to be cached or in flight.
 */
export class LabelService {
  private readonly inflight = new Map<string, Promise<BatchResult>>();

  constructor(private readonly context: DiagnosisContext) {}

  private async batch(question: string, claims: string[], text: string, cost: CostAccount): Promise<BatchResult> {
    const { checker, store } = this.context;
    const keys = claims.map((claim) => LabelStore.labelKey(checker.fingerprint, question, claim, text));
    const stored = keys.map((key) => store.getLabel(key));
    if (stored.every((label) => label !== undefined)) return { labels: stored as ClaimLabel[] };
    const callKey = createHash('sha256').update(JSON.stringify([checker.fingerprint, question, text, claims])).digest('hex');
    let pending = this.inflight.get(callKey);
    if (!pending) {
      pending = (async (): Promise<BatchResult> => {
        const outcome = await checker.check({ claims, text, question }, { signal: this.context.signal });
        cost.add(outcome.usage, 'checker');
        if (!outcome.ok) return { error: outcome.error };
        store.putLabels(keys.map((key, i) => [key, outcome.labels[i]!] as [string, ClaimLabel]));
        return { labels: outcome.labels };
      })().finally(() => this.inflight.delete(callKey));
      this.inflight.set(callKey, pending);
    }
    return pending;
  }

  /** `claims[i]` for i in `wanted` against one text: claim index → label, or → error where its batch failed. */
  async label(question: string, claims: string[], wanted: number[], text: string, cost: CostAccount): Promise<PassageLabels> {
    const out: PassageLabels = new Map();
    for (const group of chunked(wanted, this.context.checker.claimsPerCall)) {
      const result = await this.batch(question, group.map((i) => claims[i]!), text, cost);
      group.forEach((claimIndex, j) => out.set(claimIndex, result.labels ? result.labels[j]! : { error: result.error }));
    }
    return out;
  }
}

/** Claims of a text through the store (extracted once per extractor, role and text). */
async function claimsOf(context: DiagnosisContext, input: { question: string; text: string; role: 'response' | 'reference' }, cost: CostAccount): Promise<{ claims: string[] } | { error: string }> {
  const key = LabelStore.extractionKey(context.extractor.fingerprint, input.role, input.question, input.text);
  const stored = context.store.getClaims(key);
  if (stored) return { claims: stored };
  const outcome = await context.extractor.extract(input, { signal: context.signal });
  cost.add(outcome.usage, 'extractor');
  if (!outcome.ok) return { error: outcome.error };
  context.store.putClaims(key, outcome.claims);
  return { claims: outcome.claims };
}

/** Claims against a record's passages through the prefilter: each claim's candidates, checked as `checkCandidates` says. */
async function checkPassages(context: DiagnosisContext, record: RunItemRecord, claims: string[], passages: string[], label: (wanted: number[], text: string) => Promise<PassageLabels>): Promise<Checked> {
  const { prefilter, topChunks } = context.settings;
  const candidates = await rankCandidates(claims, passages, { mode: prefilter, top: topChunks, scorer: context.scorerFor(record) });
  return checkCandidates(candidates, { perCall: context.checker.claimsPerCall, adaptive: prefilter !== 'none' }, (j, wanted) => label(wanted, passages[j]!));
}

/** The texts of a record's final-prompt passages, in `contextIds` order. */
function passagesOf(record: RunItemRecord): string[] {
  const byId = new Map(record.retrieved.map((chunk) => [chunk.id, chunk.text]));
  return record.contextIds.map((id) => byId.get(id) ?? '');
}

// A condition with passages: one of hisrag's retrievers, or an external system that returned its contexts.
const usesRetrieval = (record: RunItemRecord) => record.retriever !== null || record.retrieved.length > 0;

/** The gold side of one item, shared by all its answers. */
interface GoldSide {
  gold: BenchmarkGold;
  claims: string[];
  /** Why the gold claims could not be extracted. */
  failure?: string;
  /** Per record key: the gold claims' checks against its passages. */
  checked: Map<string, Checked>;
}

/**
 * Diagnoses one item's answers: the gold side once for all its conditions (counted on the first
 * answer), then each answer's own side. The gold-side batches are cut from `all` the item's records,
 * so they do not depend on which (`todo`) remain after a resume.
 */
export async function diagnoseItem(item: BenchmarkItem, all: RunItemRecord[], todo: RunItemRecord[], context: DiagnosisContext, labels: LabelService): Promise<Map<string, RecordDiagnostics>> {
  const goldCost = new CostAccount();
  const gold = await diagnoseGoldSide(item, all, context, labels, goldCost);
  const out = new Map<string, RecordDiagnostics>();
  for (const [index, record] of [...todo].sort(byKey).entries()) {
    if (context.signal?.aborted) break;
    // The gold side's calls and time are counted on the first answer.
    out.set(record.key, await diagnoseAnswer(item, record, gold, context, labels, index === 0 ? goldCost : new CostAccount()));
  }
  return out;
}

const byKey = (a: RunItemRecord, b: RunItemRecord) => (a.key < b.key ? -1 : 1);

/** The item's gold claims (extracted where the benchmark gives none), checked against every record's passages (a passage text already labelled is not sent again). */
async function diagnoseGoldSide(item: BenchmarkItem, all: RunItemRecord[], context: DiagnosisContext, labels: LabelService, cost: CostAccount): Promise<GoldSide> {
  const gold = benchmarkGold(item);
  let claims: string[] = gold.claims ?? [];
  let failure: string | undefined;
  if (gold.claims === null) {
    const extracted = await claimsOf(context, { question: item.question, text: gold.answerText, role: 'reference' }, cost);
    if ('error' in extracted) failure = extracted.error;
    else claims = extracted.claims;
  }
  const checked = new Map<string, Checked>();
  for (const record of [...all].sort(byKey)) {
    if (!usesRetrieval(record)) continue;
    checked.set(record.key, await checkPassages(context, record, claims, passagesOf(record), (wanted, text) => labels.label(item.question, claims, wanted, text, cost)));
  }
  return { gold, claims, ...(failure !== undefined && { failure }), checked };
}

/** One answer's side: its claims against the gold answer and its passages, the gold claims against the response and the passages. */
async function diagnoseAnswer(item: BenchmarkItem, record: RunItemRecord, gold: GoldSide, context: DiagnosisContext, labels: LabelService, cost: CostAccount): Promise<RecordDiagnostics> {
  const failed: FailedCheck[] = [];
  if (gold.failure) failed.push({ what: 'goldClaims', error: gold.failure });
  const responseText = stripThink(record.response?.text ?? '').trim();
  let responseClaims: string[] = [];
  if (responseText) {
    const extracted = await claimsOf(context, { question: item.question, text: responseText, role: 'response' }, cost);
    if ('error' in extracted) failed.push({ what: 'responseClaims', error: extracted.error });
    else responseClaims = extracted.claims;
  }
  const goldClaims = gold.claims;
  const goldText = gold.gold.answerText;
  const label = (claims: string[], wanted: number[], text: string) => labels.label(item.question, claims, wanted, text, cost);

  // Response claims against the gold answer, gold claims against the response.
  const responseVsGold = goldText
    ? matrixEntries(await label(responseClaims, allIndexes(responseClaims), goldText), responseClaims.length, failed, 'responseVsGold')
    : responseClaims.map(() => null);
  const goldVsResponse = responseText
    ? matrixEntries(await label(goldClaims, allIndexes(goldClaims), responseText), goldClaims.length, failed, 'goldVsResponse')
    : goldClaims.map(() => null);

  // Chunk matrices: rows are claims, columns the final prompt's passages.
  const passages = usesRetrieval(record) ? passagesOf(record) : [];
  const responseChecked = await checkPassages(context, record, responseClaims, passages, (wanted, text) => label(responseClaims, wanted, text));
  const goldChecked = gold.checked.get(record.key) ?? { columns: new Map(), batches: [] };
  const responseColumns = passages.map((_, j) => matrixEntries(responseChecked.columns.get(j), responseClaims.length, failed, 'responseVsChunks', j));
  const goldColumns = passages.map((_, j) => matrixEntries(goldChecked.columns.get(j), goldClaims.length, failed, 'goldVsChunks', j));
  const labelsOut = {
    responseVsGold,
    goldVsResponse,
    responseVsChunks: transpose(responseColumns, responseClaims.length),
    goldVsChunks: transpose(goldColumns, goldClaims.length),
  };
  const evidence = usesRetrieval(record) ? evidenceOf(item, record) : undefined;
  return {
    responseClaims,
    goldClaims,
    goldClaimsFrom: gold.gold.from,
    contextIds: usesRetrieval(record) ? [...record.contextIds] : [],
    labels: labelsOut,
    metrics: answerMetrics({ labels: labelsOut, passages: passages.length, failed, retrieval: usesRetrieval(record) }),
    failed,
    ...(evidence ? { evidence } : {}),
    diagnosticsCost: diagnosticsCostOf({ question: item.question, responseText, responseClaims, goldText, goldClaims, passages, responseBatches: responseChecked.batches, goldBatches: goldChecked.batches }, gold.gold.claims === null, context, cost),
  };
}

const allIndexes = (claims: string[]) => claims.map((_, i) => i);
const transpose = (columns: MatrixEntry[][], rows: number) => Array.from({ length: rows }, (_, i) => columns.map((column) => column[i]!));

/** A matrix column (or row) of `count` claims' labels: null where a claim was not checked or its check failed, the failure added to `failed`. */
function matrixEntries(labelsByClaim: PassageLabels | undefined, count: number, failed: FailedCheck[], what: FailedCheck['what'], passage?: number): MatrixEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const found = labelsByClaim?.get(i);
    if (found === undefined) return null;
    if (typeof found === 'object') {
      failed.push({ what, claim: i, ...(passage !== undefined ? { passage } : {}), error: found.error });
      return null;
    }
    return found;
  });
}

/** One answer's claims and passages, and each side's calls against the passages (passage, claims). */
interface AnswerPairs { question: string; responseText: string; responseClaims: string[]; goldText: string; goldClaims: string[]; passages: string[]; responseBatches: [number, number[]][]; goldBatches: [number, number[]][] }

/**
 * What this answer's diagnosis needs, call by call, whatever a cache already holds: the batches it would
 * send on its own (claims in fixed order, cut at the checker's size) and their tokens; beside it what was
 * sent (`cost`) and how long it took.
 */
function diagnosticsCostOf(pairs: AnswerPairs, extractsGold: boolean, context: DiagnosisContext, cost: CostAccount): DiagnosticsCost {
  const { question, responseText, responseClaims, goldText, goldClaims, passages, responseBatches, goldBatches } = pairs;
  const perCall = context.checker.claimsPerCall;
  const need = { calls: 0, promptTokens: 0, completionTokens: 0 };
  const add = (estimate: { promptTokens: number; completionTokens: number }) => { need.promptTokens += estimate.promptTokens; need.completionTokens += estimate.completionTokens; };
  const needBatches = (claims: string[], wanted: number[], text: string) => {
    for (const group of text ? chunked(wanted, perCall) : []) { need.calls++; add(context.checker.estimate({ claims: group.map((i) => claims[i]!), text, question })); }
  };
  needBatches(responseClaims, goldText ? allIndexes(responseClaims) : [], goldText);
  needBatches(goldClaims, responseText ? allIndexes(goldClaims) : [], responseText);
  for (const [j, wanted] of responseBatches) needBatches(responseClaims, wanted, passages[j]!);
  for (const [j, wanted] of goldBatches) needBatches(goldClaims, wanted, passages[j]!);
  const extractions = [...(responseText ? [{ question, text: responseText, role: 'response' as const }] : []), ...(extractsGold ? [{ question, text: goldText, role: 'reference' as const }] : [])];
  for (const input of extractions) add(context.extractor.estimate(input));
  const k = passages.length;
  const pairsChecked = [...responseBatches, ...goldBatches].reduce((n, [, claims]) => n + claims.length, 0);
  return {
    extractorCalls: extractions.length,
    checkerCalls: need.calls,
    allPairsCalls: (k + 1) * (Math.ceil(responseClaims.length / perCall) + Math.ceil(goldClaims.length / perCall)),
    pairsChecked,
    pairsSkipped: k * (responseClaims.length + goldClaims.length) - pairsChecked,
    promptTokens: need.promptTokens,
    completionTokens: need.completionTokens,
    extractorCallsSent: cost.extractorCalls,
    checkerCallsSent: cost.checkerCallsSent,
    promptTokensSent: cost.promptTokens,
    completionTokensSent: cost.completionTokens,
    estimatedTokensSent: cost.estimated,
    durationMs: Date.now() - cost.startedAt,
  };
}
