import { CLAIM_METRICS, CHUNKLESS_METRICS, type ClaimMetric, type FailedCheck, type LabelMatrices, type MatrixEntry, type MatrixName } from '../runFiles/diagnosis.js';

/**
 * RAGChecker's per-answer metrics (amazon-science/RAGChecker, `ragchecker/computation.py`), on 0–1,
 * from the four label matrices. Only entailment counts; a pair the prefilter did not send (null)
 * counts as not entailed. The matrices map to RAGChecker's names as
 *   responseVsGold  = answer2response    (one label per response claim: entailed by the gold answer → "correct")
 *   goldVsResponse  = response2answer    (one label per gold claim: entailed by the response)
 *   responseVsChunks = retrieved2response (response claims × passages)
 *   goldVsChunks    = retrieved2answer   (gold claims × passages)
 * and each formula below is RAGChecker's, with its rule that an empty input gives 0, not NaN.
 */

const entailed = (label: MatrixEntry) => label === 'entailment';
const mean = (flags: boolean[]) => (flags.length ? flags.filter(Boolean).length / flags.length : 0);

/** Which matrices each metric reads: a failed check in one of them leaves the metric uncomputed. */
export const METRIC_INPUTS: Record<ClaimMetric, MatrixName[]> = {
  precision: ['responseVsGold'],
  recall: ['goldVsResponse'],
  f1: ['responseVsGold', 'goldVsResponse'],
  claimRecall: ['goldVsChunks'],
  contextPrecision: ['goldVsChunks'],
  contextUtilization: ['goldVsChunks', 'goldVsResponse'],
  noiseSensitivityRelevant: ['responseVsChunks', 'goldVsChunks', 'responseVsGold'],
  noiseSensitivityIrrelevant: ['responseVsChunks', 'goldVsChunks', 'responseVsGold'],
  hallucination: ['responseVsChunks', 'responseVsGold'],
  selfKnowledge: ['responseVsChunks', 'responseVsGold'],
  faithfulness: ['responseVsChunks'],
};

export interface MetricInputs {
  labels: LabelMatrices;
  /** Passages in the final prompt (the chunk matrices' width); 0 for closed-book answers. */
  passages: number;
}

/** All eleven metrics from complete matrices (RAGChecker's computation, exactly). */
export function ragCheckerMetrics({ labels, passages }: MetricInputs): Record<ClaimMetric, number> {
  const correct = labels.responseVsGold.map(entailed); // answer2response
  const goldInResponse = labels.goldVsResponse.map(entailed); // response2answer
  const precision = mean(correct);
  const recall = mean(goldInResponse);
  const f1 = precision > 0 && recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;

  const goldRows = labels.goldVsChunks.map((row) => row.map(entailed));
  const responseRows = labels.responseVsChunks.map((row) => row.map(entailed));
  const hasChunks = passages > 0;

  // Retriever metrics (evaluate_retrieval): claim recall over gold claims, context precision over passages.
  const claimRecalled = goldRows.map((row) => row.some(Boolean));
  const claimRecall = hasChunks && goldRows.length ? mean(claimRecalled) : 0;
  const relevant = Array.from({ length: passages }, (_, j) => goldRows.some((row) => row[j] === true));
  const contextPrecision = hasChunks && goldRows.length ? mean(relevant) : 0;

  // evaluate_context_utilization: gold claims found in a passage and in the response ÷ found in a passage.
  const recalledCount = hasChunks ? claimRecalled.filter(Boolean).length : 0;
  const contextUtilization = recalledCount > 0 ? claimRecalled.filter((r, i) => r && goldInResponse[i]).length / recalledCount : 0;

  // evaluate_unfaithfulness and evaluate_faithfulness: need response claims and passages.
  const faithful = responseRows.map((row) => row.some(Boolean));
  const withResponseChunks = hasChunks && responseRows.length > 0;
  const faithfulness = withResponseChunks ? mean(faithful) : 0;
  const hallucination = withResponseChunks ? mean(faithful.map((f, i) => !f && !correct[i])) : 0;
  const selfKnowledge = withResponseChunks ? mean(faithful.map((f, i) => !f && correct[i] === true)) : 0;

  // evaluate_noise_sensitivity: also needs gold claims (they decide which passages are relevant).
  let noiseSensitivityRelevant = 0;
  let noiseSensitivityIrrelevant = 0;
  if (correct.length > 0 && withResponseChunks && goldRows.length > 0) {
    const relevantFaithful = responseRows.map((row) => row.some((e, j) => e && relevant[j]));
    const irrelevantFaithful = responseRows.map((row, i) => row.some((e, j) => e && !relevant[j]) && !relevantFaithful[i]);
    noiseSensitivityRelevant = mean(relevantFaithful.map((f, i) => f && !correct[i]));
    noiseSensitivityIrrelevant = mean(irrelevantFaithful.map((f, i) => f && !correct[i]));
  }
  return {
    precision,
    recall,
    f1,
    claimRecall,
    contextPrecision,
    contextUtilization,
    noiseSensitivityRelevant,
    noiseSensitivityIrrelevant,
    hallucination,
    selfKnowledge,
    faithfulness,
  };
}

/**
 * The metrics one answer gets: all eleven for an answer with a retrieval condition, the three that
 * need no passages for a closed-book one; a metric reading a matrix with a failed check (or
 * claims whose extraction failed) is null — counted in the summary, never computed from a guess.
 */
export function answerMetrics(input: MetricInputs & { failed: FailedCheck[]; retrieval: boolean }): Partial<Record<ClaimMetric, number | null>> {
  const broken = new Set<MatrixName>();
  for (const failure of input.failed) {
    if (failure.what === 'responseClaims') broken.add('responseVsGold').add('responseVsChunks');
    else if (failure.what === 'goldClaims') broken.add('goldVsResponse').add('goldVsChunks');
    else broken.add(failure.what);
  }
  const values = ragCheckerMetrics(input);
  const names = input.retrieval ? CLAIM_METRICS : CHUNKLESS_METRICS;
  return Object.fromEntries(names.map((name) => [name, METRIC_INPUTS[name].some((m) => broken.has(m)) ? null : values[name]]));
}
