/**
 * hisrag's library API. The `hisrag` CLI is a thin layer over these functions.
 */
export { VERSION } from './version.js';
export { InputError, ConfigError, DataFileError } from './errors.js';
export { Registry, type RegistryEntry } from './registry.js';

// config → experiment
export { loadExperimentConfig, validateExperimentConfig, applyOverrides } from './config/load.js';
export { ExperimentConfigSchema, type ExperimentConfig } from './config/experiment.js';
export { runExperiment, regenerateReport, type RunOptions, type RunResult } from './experiment/runner.js';
export { summarizeRun, type RunSummary } from './experiment/summary.js';
export type { RunItemRecord } from './experiment/records.js';

// stages, each with its registry
export { buildCorpus } from './corpus/build.js';
export { readChunks, readCorpusManifest } from './corpus/read.js';
export { generateFixtureModel } from './embedding/fixture/generateFixtureModel.js';
export { embedders } from './embedding/registry.js';
export { buildIndex } from './index/buildIndex.js';
export { tuneIndex } from './index/tuneIndex.js';
export { openIndex } from './index/openIndex.js';
export { retrievers, createRetriever, createRetrieverContext } from './retrieval/registry.js';
export { benchmarks } from './benchmarks/registry.js';
export { strategies } from './prompting/registry.js';
export { generators } from './generation/registry.js';
export { judges } from './scoring/judges/registry.js';
export { extractors } from './scoring/extractors/registry.js';
export { scoreItem } from './scoring/scoreItem.js';
export { summarizeScores, pairedBootstrap } from './scoring/bootstrap.js';
export { retrievalMetrics } from './scoring/retrievalMetrics.js';

// analysis
export * from './results/index.js';
export { renderReportHtml } from './report/html.js';
export { compareRuns } from './report/compare.js';
