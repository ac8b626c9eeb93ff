import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { z } from 'zod';
import pLimit from 'p-limit';
import { DataFileError } from '../errors.js';
import { loadingModel, loadTokenizer, prepareModel, pretrainedOptions, type ModelRole } from '../models/modelLoading.js';
import { siblingWorker, WorkerPool } from '../models/workerPool.js';
import type { TransformersEmbedderParams } from './transformersParams.js';
import type { Pooling } from './conventions.js';

/** The part of config.json the embedder relies on. */
const ModelConfigSchema = z.object({ hidden_size: z.number().int().positive() }).passthrough();

/** One loaded model (in this process or a pool of worker processes) and what is known about it. */
export interface TransformersModel {
  dimension: number;
  /** Changes whenever the model files change (local models): part of cache keys. */
  fingerprint: string;
  /** In-process model 1; a worker pool its size (batches worth keeping in flight). */
  parallel: number;
  countTokens(texts: string[]): number[];
  embedBatch(texts: string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export type ModelLoadParams = Pick<TransformersEmbedderParams, 'model' | 'cacheDir' | 'allowRemote' | 'maxTokens' | 'dtype' | 'threads'> & {
  /** Resolved (config, preset, model files or default): see `resolveConventions`. */
  pooling: Pooling;
  normalize: boolean;
};

/** transformers.js' name for each pooling. */
const PIPELINE_POOLING = { cls: 'cls', mean: 'mean', last: 'last_token' } as const;

export const EMBEDDER_ROLE: ModelRole = { configPath: 'embedder.model', directory: 'model directory', fixtureCommand: 'hisrag model fixture' };

/** Loads a model through the same `feature-extraction` pipeline the real bge model uses: pooling and normalisation are the embedder's own. */
export async function loadTransformersModel(params: ModelLoadParams): Promise<TransformersModel> {
  const { location, fingerprint } = prepareModel(params, EMBEDDER_ROLE);
  const extractor = await loadingModel(
    params,
    EMBEDDER_ROLE,
    location,
    async () => (await pipeline('feature-extraction', location.reference, pretrainedOptions(params))) as FeatureExtractionPipeline,
  );
  const config = ModelConfigSchema.safeParse(extractor.model.config);
  if (!config.success) throw new DataFileError(`${params.model}/config.json: hidden_size: missing or not a positive integer`);
  const dimension = config.data.hidden_size;
  // The pipeline truncates to the tokenizer's model_max_length; lowering it makes maxTokens apply.
  const tokenizer = extractor.tokenizer as unknown as { model_max_length: number; padding_side: string; encode(text: string): number[] };
  tokenizer.model_max_length = Math.min(tokenizer.model_max_length ?? params.maxTokens, params.maxTokens);
  // Last-token pooling reads the last position: padding must go on the left, or short texts in a batch would pool a pad token.
  if (params.pooling === 'last') tokenizer.padding_side = 'left';

  // One model call at a time: concurrent callers (e.g. server requests) queue instead of piling up tensors.
  const oneAtATime = pLimit(1);
  return {
    dimension,
    fingerprint,
    parallel: 1,
    countTokens: (texts) => texts.map((text) => Math.min(tokenizer.encode(text).length, params.maxTokens)),
    embedBatch: (texts) => oneAtATime(async () => {
      const output = await extractor(texts, { pooling: PIPELINE_POOLING[params.pooling], normalize: params.normalize });
      const [rows, width] = output.dims as [number, number];
      if (rows !== texts.length || width !== dimension) {
        throw new DataFileError(`${params.model}: model returned [${output.dims.join(', ')}] for ${texts.length} texts of dimension ${dimension}`);
      }
      const data = output.data as Float32Array;
      const vectors = Array.from({ length: rows }, (_, i) => data.slice(i * width, (i + 1) * width));
      output.dispose();
      return vectors;
    }),
    async dispose() {
      await extractor.dispose();
    },
  };
}

/** What an embedding worker reports once loaded, and what a batch comes back as (all vectors in one buffer). */
export type EmbeddingWorkerReady = { dimension: number; fingerprint: string };

/**
 * The model in `workers` worker processes (`transformersWorker.ts`), each with its own instance;
 * token counts (for length batching) come from the tokenizer here, without loading the weights.
 */
export async function startTransformersWorkers(params: ModelLoadParams, workers: number): Promise<TransformersModel> {
  const { tokenizer } = await loadTokenizer<{ encode(text: string): number[] }>(params, EMBEDDER_ROLE);
  const { pool, ready } = await WorkerPool.start<ModelLoadParams, EmbeddingWorkerReady, string[], Float32Array>(
    siblingWorker(import.meta.url, 'transformersWorker'),
    'embedding worker',
    params,
    workers,
  );
  const width = ready.dimension;
  return {
    ...ready,
    parallel: workers,
    countTokens: (texts) => texts.map((text) => Math.min(tokenizer.encode(text).length, params.maxTokens)),
    embedBatch: async (texts) => {
      const data = await pool.run(texts);
      return Array.from({ length: texts.length }, (_, i) => data.subarray(i * width, (i + 1) * width));
    },
    dispose: () => pool.dispose(),
  };
}
