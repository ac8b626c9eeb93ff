import { createHash } from 'node:crypto';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { stripThink } from '../scoring/stripThink.js';
import { answerMetrics } from './claimMetrics.js';
import type { CallUsage, ClaimChecker, ClaimExtractor } from './claims/types.js';
import { evidenceOf } from './evidence.js';
import { benchmarkGold } from './goldClaims.js';
import { LabelStore } from './labelStore.js';
import { groupBy } from './groupBy.js';
import { selectPairs, type PairScorer } from './prefilter.js';
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

/** Calls sent and tokens used on behalf of one answer. */
class CostAccount {
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
const callsFor = (claims: number, perCall: number) => Math.ceil(claims / perCall);

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
  async label(question: string, claims: string[], wanted: number[], text: string, cost: CostAccount): Promise<Map<number, ClaimLabel | { error: string }>> {
    const out = new Map<number, ClaimLabel | { error: string }>();
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

/** A prefilter's selection (per claim, its passages) turned round: per passage, in order, the claims to check against it. */
function claimsByPassage(selected: number[][]): [number, number[]][] {
  const byPassage = groupBy(selected.flatMap((columns, i) => columns.map((j) => [j, i] as const)), ([j]) => j);
  return [...byPassage].map(([j, pairs]): [number, number[]] => [j, pairs.map(([, i]) => i)]).sort(([a], [b]) => a - b);
}

/** The texts of a record's final-prompt passages, in `contextIds` order. */
function passagesOf(record: RunItemRecord): string[] {
  const byId = new Map(record.retrieved.map((chunk) => [chunk.id, chunk.text]));
  return record.contextIds.map((id) => byId.get(id) ?? '');
}

// A condition with passages: one of hisrag's retrievers, or an external system that returned its contexts.
const usesRetrieval = (record: RunItemRecord) => record.retriever !== null || record.retrieved.length > 0;

/**
 * Diagnoses one item's answers: the gold side once for all its conditions (counted on the first
 * answer), then each answer's own side. The gold-side batches are cut from `all` the item's records,
 * so they do not depend on which (`todo`) remain after a resume.
 */
export async function diagnoseItem(
  item: BenchmarkItem,
  all: RunItemRecord[],
  todo: RunItemRecord[],
  context: DiagnosisContext,
  labels: LabelService,
): Promise<Map<string, RecordDiagnostics>> {
  const started = Date.now();
  const goldCost = new CostAccount();
  const gold = benchmarkGold(item);
  let goldClaims: string[] = gold.claims ?? [];
  let goldFailure: string | undefined;
  if (gold.claims === null) {
    const extracted = await claimsOf(context, { question: item.question, text: gold.answerText, role: 'reference' }, goldCost);
    if ('error' in extracted) goldFailure = extracted.error;
    else goldClaims = extracted.claims;
  }

  // Gold side: the union over every record's prefilter of (gold claim, passage) pairs, per passage text.
  const selections = new Map<string, number[][]>();
  const wantedByText = new Map<string, Set<number>>();
  const sorted = [...all].sort((a, b) => (a.key < b.key ? -1 : 1));
  for (const record of sorted) {
    if (!usesRetrieval(record)) continue;
    const passages = passagesOf(record);
    const selected = await selectPairs(goldClaims, passages, { mode: context.settings.prefilter, top: context.settings.topChunks, scorer: context.scorerFor(record) });
    selections.set(record.key, selected);
    selected.forEach((columns, claimIndex) => {
      for (const j of columns) {
        const text = passages[j]!;
        if (!text) continue;
        let set = wantedByText.get(text);
        if (!set) wantedByText.set(text, (set = new Set()));
        set.add(claimIndex);
      }
    });
  }
  const goldLabels = new Map<string, Map<number, ClaimLabel | { error: string }>>();
  for (const [text, wanted] of wantedByText) {
    goldLabels.set(text, await labels.label(item.question, goldClaims, [...wanted].sort((a, b) => a - b), text, goldCost));
  }
  const goldMs = Date.now() - started;

  const out = new Map<string, RecordDiagnostics>();
  const todoSorted = [...todo].sort((a, b) => (a.key < b.key ? -1 : 1));
  for (const [index, record] of todoSorted.entries()) {
    if (context.signal?.aborted) break;
    const recordStarted = Date.now();
    // The gold side's calls are counted on the first answer.
    const cost = index === 0 ? goldCost : new CostAccount();
    const failed: FailedCheck[] = [];
    if (goldFailure) failed.push({ what: 'goldClaims', error: goldFailure });
    const responseText = stripThink(record.response?.text ?? '').trim();
    let responseClaims: string[] = [];
    if (responseText) {
      const extracted = await claimsOf(context, { question: item.question, text: responseText, role: 'response' }, cost);
      if ('error' in extracted) failed.push({ what: 'responseClaims', error: extracted.error });
      else responseClaims = extracted.claims;
    }
    const perCall = context.checker.claimsPerCall;
    const all = (claims: string[]) => claims.map((_, i) => i);
    const toEntries = (labelsByClaim: Map<number, ClaimLabel | { error: string }> | undefined, count: number, what: FailedCheck['what'], passage?: number): MatrixEntry[] =>
      Array.from({ length: count }, (_, i) => {
        const found = labelsByClaim?.get(i);
        if (found === undefined) return null;
        if (typeof found === 'object') {
          failed.push({ what, claim: i, ...(passage !== undefined ? { passage } : {}), error: found.error });
          return null;
        }
        return found;
      });

    // Response claims against the gold answer, gold claims against the response.
    const responseVsGold = gold.answerText
      ? toEntries(await labels.label(item.question, responseClaims, all(responseClaims), gold.answerText, cost), responseClaims.length, 'responseVsGold')
      : responseClaims.map(() => null);
    const goldVsResponse = responseText
      ? toEntries(await labels.label(item.question, goldClaims, all(goldClaims), responseText, cost), goldClaims.length, 'goldVsResponse')
      : goldClaims.map(() => null);

    // Chunk matrices: rows are claims, columns the final prompt's passages.
    const passages = usesRetrieval(record) ? passagesOf(record) : [];
    const responseSelected = await selectPairs(responseClaims, passages, { mode: context.settings.prefilter, top: context.settings.topChunks, scorer: context.scorerFor(record) });
    const responseColumns: MatrixEntry[][] = [];
    const responseByPassage = new Map<number, Map<number, ClaimLabel | { error: string }>>();
    for (const [j, wanted] of claimsByPassage(responseSelected)) {
      if (!passages[j]) continue;
      responseByPassage.set(j, await labels.label(item.question, responseClaims, wanted, passages[j]!, cost));
    }
    for (let j = 0; j < passages.length; j++) responseColumns.push(toEntries(responseByPassage.get(j), responseClaims.length, 'responseVsChunks', j));

    const goldSelected = selections.get(record.key) ?? goldClaims.map(() => [] as number[]);
    const goldColumns: MatrixEntry[][] = [];
    for (let j = 0; j < passages.length; j++) {
      const chosen = new Set(goldSelected.flatMap((columns, i) => (columns.includes(j) ? [i] : [])));
      const stored = goldLabels.get(passages[j]!);
      const restricted = new Map([...(stored ?? new Map())].filter(([i]) => chosen.has(i)));
      goldColumns.push(toEntries(restricted, goldClaims.length, 'goldVsChunks', j));
    }
    const transpose = (columns: MatrixEntry[][], rows: number) => Array.from({ length: rows }, (_, i) => columns.map((column) => column[i]!));
    const labelsOut = {
      responseVsGold,
      goldVsResponse,
      responseVsChunks: transpose(responseColumns, responseClaims.length),
      goldVsChunks: transpose(goldColumns, goldClaims.length),
    };

    const pairsChecked = responseSelected.reduce((n, c) => n + c.length, 0) + goldSelected.reduce((n, c) => n + c.length, 0);
    // What this answer's diagnosis needs, call by call, whatever a cache already holds: the batches
    // it would send on its own (claims in fixed order, cut at the checker's size) and their tokens.
    const need = { calls: 0, promptTokens: 0, completionTokens: 0 };
    const needBatches = (claims: string[], wanted: number[], text: string) => {
      if (!text) return;
      for (const group of chunked(wanted, perCall)) {
        const estimate = context.checker.estimate({ claims: group.map((i) => claims[i]!), text, question: item.question });
        need.calls++;
        need.promptTokens += estimate.promptTokens;
        need.completionTokens += estimate.completionTokens;
      }
    };
    needBatches(responseClaims, gold.answerText ? all(responseClaims) : [], gold.answerText);
    needBatches(goldClaims, responseText ? all(goldClaims) : [], responseText);
    for (const [j, wanted] of claimsByPassage(responseSelected)) needBatches(responseClaims, wanted, passages[j]!);
    for (const [j, wanted] of claimsByPassage(goldSelected)) needBatches(goldClaims, wanted, passages[j]!);
    let extractorCalls = 0;
    for (const input of [
      ...(responseText ? [{ question: item.question, text: responseText, role: 'response' as const }] : []),
      ...(gold.claims === null ? [{ question: item.question, text: gold.answerText, role: 'reference' as const }] : []),
    ]) {
      const estimate = context.extractor.estimate(input);
      extractorCalls++;
      need.promptTokens += estimate.promptTokens;
      need.completionTokens += estimate.completionTokens;
    }
    const k = passages.length;
    const diagnosticsCost: DiagnosticsCost = {
      extractorCalls,
      checkerCalls: need.calls,
      allPairsCalls: (k + 1) * (callsFor(responseClaims.length, perCall) + callsFor(goldClaims.length, perCall)),
      pairsChecked,
      pairsSkipped: k * (responseClaims.length + goldClaims.length) - pairsChecked,
      promptTokens: need.promptTokens,
      completionTokens: need.completionTokens,
      extractorCallsSent: cost.extractorCalls,
      checkerCallsSent: cost.checkerCallsSent,
      promptTokensSent: cost.promptTokens,
      completionTokensSent: cost.completionTokens,
      estimatedTokensSent: cost.estimated,
      durationMs: Date.now() - recordStarted + (index === 0 ? goldMs : 0),
    };
    const evidence = usesRetrieval(record) ? evidenceOf(item, record) : undefined;
    out.set(record.key, {
      responseClaims,
      goldClaims,
      goldClaimsFrom: gold.from,
      contextIds: usesRetrieval(record) ? [...record.contextIds] : [],
      labels: labelsOut,
      metrics: answerMetrics({ labels: labelsOut, passages: k, failed, retrieval: usesRetrieval(record) }),
      failed,
      ...(evidence ? { evidence } : {}),
      diagnosticsCost,
    });
  }
  return out;
}
