// The shared scorer's public API: what the runner, the report and `hisrag score` use.
export { scoreItem, type ScoreDeps } from './scoreItem.js';
export { SCORING_COMPAT_MODES, type ScoringCompat } from './compat.js';
export { stripThink } from './stripThink.js';
export { judges } from './judges/registry.js';
export { createLexicalJudge } from './judges/lexical.js';
export { createLlmJudge } from './judges/llm.js';
export { judgeMessages } from './judges/prompt.js';
export { extractors } from './extractors/registry.js';
export { extractByRules } from './extractors/rules.js';
export { createLlmExtractor } from './extractors/llm.js';
export { extractionMessages } from './extractors/prompts.js';
export { parseRubric, verdictKey, bonusTotal } from './rubric/parseRubric.js';
export { parseJudgeOutput, type ParsedJudgeOutput } from './rubric/parseJudgeOutput.js';
export { rubricScore, missingVerdicts, type RubricScore } from './rubric/rubricScore.js';
export { roundHalfEven } from './rubric/roundHalfEven.js';
export { extractBoxedLetters, scoreMcq } from './rubric/mcq.js';
export { scoreLongHisDoc, type LongHisDocAnswer } from './longhisdoc/accuracy.js';
export { anls } from './longhisdoc/anls.js';
export {
  LONGHISDOC_ANSWER_TYPES,
  LongHisDocRecordSchema,
  LongHisDocGoldSchema,
  LongHisDocFileShapeSchema,
  loadLongHisDocQa,
  readLongHisDocShape,
  parsePageList,
  type LongHisDocAnswerType,
  type LongHisDocRecord,
  type LongHisDocFile,
  type LongHisDocGold,
} from '../benchmarks/longhisdoc/schema.js';
export { summarizeBy } from './summarizeBy.js';
export { retrievalMetrics, meanRetrievalMetrics, retrievalBreakdown, type RetrievalMetrics } from './retrievalMetrics.js';
export { bleu4 } from './textMetrics/bleu.js';
export { rougeL, type PrfScore } from './textMetrics/rougeL.js';
export { bertScore, greedyMatch, type TokenVectors } from './textMetrics/bertScore.js';
export { loadTransformersTokenVectors, type TokenVectorOptions } from './textMetrics/transformersTokenVectors.js';
export { judgeAgreement, VerdictRecordSchema, type VerdictRecord, type JudgeAgreement } from './agreement.js';
export { rescoreRubricRecord, SavedRubricRecordSchema, type SavedRubricRecord } from './rescore/rubricRecord.js';
export { rescoreLongHisDocRecord, longHisDocItem, ScoredLongHisDocRecordSchema } from './rescore/longhisdocRecord.js';
export * from './types.js';
