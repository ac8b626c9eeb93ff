/**
 * hisrag's library API, the package's entry (`import … from 'hisrag'`; `package.json`'s `exports`). The
 * `hisrag` CLI is a thin layer over these functions.
 */
export { VERSION } from './version.js';
export { InputError, ConfigError, DataFileError } from './errors.js';
export { Registry, type RegistryEntry } from './registry.js';

// config → experiment
export { loadExperimentConfig, validateExperimentConfig, applyOverrides } from './config/load.js';
export { experimentConfigSchema, type ExperimentConfig } from './config/experiment.js';
export { runExperiment, type RunOptions, type RunResult } from './app/runExperiment.js';
export { regenerateReport } from './app/rewriteReport.js';
export type { RunSummary } from './runFiles/summary.js';
export { summarizeRun } from './analysis/summary.js';
export type { RunItemRecord } from './runFiles/itemRecord.js';

// stages, each with its registry
export { buildCorpus } from './corpus/build.js';
export { readChunks, readCorpusManifest } from './runFiles/corpusFiles.js';
export { generateFixtureModel } from './embedding/fixture/generateFixtureModel.js';
export { embedders, createEmbedder } from './embedding/registry.js';
export type { TextEmbedder } from './embedding/types.js';
export { buildIndex } from './index/buildIndex.js';
export type { BuildIndexOptions } from './index/buildOptions.js';
export { appendChunks } from './index/appendChunks.js';
export { tuneIndex } from './index/tuneIndex.js';
export { openIndex } from './index/openIndex.js';
export type { EmbedderIdentity, IndexManifest, IndexKind, LanceDbParams } from './runFiles/indexManifest.js';
export { createRetriever } from './retrieval/createRetriever.js';
export {
  retrievers,
  createRetrieverContext,
  RetrieverRegistry,
  type RetrieverContext,
  type RetrieverSpec,
} from './retrieval/registry.js';
export type { Retriever, RetrievalQuery, RetrievedChunk } from './retrieval/types.js';
export type { Chunk } from './runFiles/corpusFiles.js';

// LangChain, both ways: hisrag's retrievers are BaseRetrievers, its HNSW index a VectorStore, its
// embedders Embeddings; any LangChain VectorStore or BaseRetriever can be registered as a retriever.
export {
  HisragLangChainRetriever,
  asLangChainRetriever,
  chunkToDocument,
  DEFAULT_LANGCHAIN_K,
  type RetrievedChunkMetadata,
  type LangChainSearch,
} from './retrieval/langchain/langchainRetriever.js';
export { HisragHnswVectorStore, type HnswVectorStoreFilter } from './retrieval/langchain/hnswVectorStore.js';
export { fromLangChain, langChainRetriever, type LangChainSource, type LangChainFactory, type LangChainScore } from './retrieval/langchain/fromLangChain.js';
export { documentToChunk } from './retrieval/langchain/documentChunk.js';
export { rerankers } from './rerank/registry.js';
export type { Reranker, RerankOutcome } from './rerank/types.js';
export { createRetrieverWithRerank, rerankedRetriever } from './rerank/rerankedRetriever.js';
export { CrossEncoderReranker } from './rerank/crossEncoderReranker.js';
export { startRerankServer } from './rerank/rerankServer.js';
export { generateRerankerFixture } from './rerank/fixture/generateRerankerFixture.js';
export { benchmarks } from './benchmarks/registry.js';
export { strategies } from './prompting/registry.js';
export { methods, createMethod, parseMethodSpec } from './methods/registry.js';
export type { RagMethod, MethodContext, MethodOutcome } from './methods/types.js';
export { MethodRun } from './methods/methodRun.js';
export { MethodStepError } from './methods/stepError.js';
export type { TraceStep, MethodCost } from './runFiles/trace.js';
export { generators } from './generation/registry.js';
export { judges } from './scoring/judges/registry.js';
export { extractors } from './scoring/extractors/registry.js';
export { scoreItem } from './scoring/scoreItem.js';
export { summarizeScores, pairedBootstrap } from './statistics/bootstrap.js';
export { retrievalMetrics } from './scoring/retrievalMetrics.js';

// diagnostics: why retrieval helps or hurts
export { resolveDiagnosticsConfig, defaultClaimModels, type DiagnoseOptions } from './diagnostics/diagnoseRun.js';
export { diagnoseRun, type DiagnoseResult } from './app/diagnose.js';
export { DiagnosticsConfigSchema, type DiagnosticsConfig } from './config/diagnostics.js';
export { claimExtractors, claimCheckers } from './diagnostics/claims/registry.js';
export type { ClaimExtractor, ClaimChecker } from './diagnostics/claims/types.js';
export { ragCheckerMetrics, answerMetrics } from './diagnostics/claimMetrics.js';
export { decompose, pairedItems } from './diagnostics/decomposition.js';
export * from './runFiles/diagnosis.js';

// analysis
export * from './results/index.js';
export { renderReportHtml } from './report/html.js';
export { compareRuns } from './app/compare.js';
