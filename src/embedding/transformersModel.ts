import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { AutoTokenizer, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { z } from 'zod';
import pLimit from 'p-limit';
import { ConfigError, DataFileError } from '../errors.js';
import type { TransformersEmbedderParams } from './transformersParams.js';

/** Where a model comes from: a local directory, or a hub id resolved through the cache dir. */
export interface ModelLocation {
  /** What transformers.js is given: an absolute directory, or the hub id. */
  reference: string;
  /** Stable name for identities: a local directory relative to the working dir when inside it. */
  displayName: string;
  localDir?: string;
}

const looksLikePath = (model: string) => /^(\.{1,2}\/|\/|~)/.test(model) || model.split('/').length > 2;

export function locateModel(model: string): ModelLocation {
  const absolute = resolve(model);
  if (looksLikePath(model) || (existsSync(absolute) && statSync(absolute).isDirectory())) {
    const inside = relative(process.cwd(), absolute);
    const displayName = !inside.startsWith('..') && !isAbsolute(inside) ? inside : absolute;
    return { reference: absolute, displayName, localDir: absolute };
  }
  return { reference: model, displayName: model };
}

/** The part of config.json the embedder relies on. */
const ModelConfigSchema = z.object({ hidden_size: z.number().int().positive() }).passthrough();

/** One loaded model: the transformers.js feature-extraction pipeline and what is known about it. */
export interface TransformersModel {
  dimension: number;
  /** Changes whenever the model files change (local models): part of cache keys. */
  fingerprint: string;
  countTokens(texts: string[]): number[];
  embedBatch(texts: string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export type ModelLoadParams = Pick<
  TransformersEmbedderParams,
  'model' | 'cacheDir' | 'allowRemote' | 'pooling' | 'normalize' | 'maxTokens' | 'dtype' | 'threads'
>;

function checkLocalModel(dir: string, dtype: ModelLoadParams['dtype']): string {
  const onnxFile = join(dir, 'onnx', dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFile]) {
    const path = isAbsolute(file) ? file : join(dir, file);
    if (!existsSync(path)) {
      throw new ConfigError(
        `embedder.model: ${path} is missing (a model directory holds config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx` +
          `${dtype === 'q8' ? ' and onnx/model_quantized.onnx for dtype q8' : ''}; \`hisrag model fixture\` generates one)`,
      );
    }
  }
  return onnxFile;
}

/** The directory holding a model's files and the ONNX file a dtype uses: a local directory, or a hub id's copy in the cache dir. */
export function modelFiles(params: Pick<ModelLoadParams, 'model' | 'cacheDir' | 'dtype'>): { dir: string; onnxFile: string } | undefined {
  const location = locateModel(params.model);
  const dir = location.localDir ?? join(resolve(params.cacheDir), params.model);
  const onnxFile = join(dir, 'onnx', params.dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
  return existsSync(onnxFile) ? { dir, onnxFile } : undefined;
}

/** Checks a local model directory and computes the model's fingerprint (before anything loads). */
function prepareModel(params: ModelLoadParams): { location: ModelLocation; fingerprint: string } {
  const location = locateModel(params.model);
  let fingerprint = `${location.displayName}|${params.dtype}`;
  if (location.localDir) {
    const onnxFile = checkLocalModel(location.localDir, params.dtype);
    const stat = statSync(onnxFile);
    fingerprint += `|${stat.size}|${stat.mtimeMs}`;
  }
  return { location, fingerprint };
}

/** Runs a transformers.js load, turning its failure into a ConfigError that says where it looked. */
async function loading<T>(params: ModelLoadParams, location: ModelLocation, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const hint = location.localDir
      ? ''
      : ` (looked in ${join(resolve(params.cacheDir), params.model)}; set allowRemote: true to download it, or point model at a local directory)`;
    throw new ConfigError(`embedder.model: cannot load "${params.model}"${hint}: ${(error as Error).message}`);
  }
}

/** Loads a model through the same `feature-extraction` pipeline the real bge model uses. */
export async function loadTransformersModel(params: ModelLoadParams): Promise<TransformersModel> {
  const { location, fingerprint } = prepareModel(params);
  const extractor = await loading(
    params,
    location,
    async () =>
      (await pipeline('feature-extraction', location.reference, {
        dtype: params.dtype,
        local_files_only: !params.allowRemote,
        cache_dir: resolve(params.cacheDir),
        session_options: params.threads ? { intraOpNumThreads: params.threads, interOpNumThreads: 1 } : {},
      })) as FeatureExtractionPipeline,
  );
  const config = ModelConfigSchema.safeParse(extractor.model.config);
  if (!config.success) throw new DataFileError(`${params.model}/config.json: hidden_size: missing or not a positive integer`);
  const dimension = config.data.hidden_size;
  // The pipeline truncates to the tokenizer's model_max_length; lowering it makes maxTokens apply.
  const tokenizer = extractor.tokenizer as unknown as { model_max_length: number; encode(text: string): number[] };
  tokenizer.model_max_length = Math.min(tokenizer.model_max_length ?? params.maxTokens, params.maxTokens);

  // One model call at a time: concurrent callers (e.g. server requests) queue instead of piling up tensors.
  const oneAtATime = pLimit(1);
  return {
    dimension,
    fingerprint,
    countTokens: (texts) => texts.map((text) => Math.min(tokenizer.encode(text).length, params.maxTokens)),
    embedBatch: (texts) => oneAtATime(async () => {
      const output = await extractor(texts, { pooling: params.pooling, normalize: params.normalize });
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

/** Token counts without loading the model (the worker pool's main thread sorts by length). */
export async function loadTokenCounter(params: ModelLoadParams): Promise<(texts: string[]) => number[]> {
  const { location } = prepareModel(params);
  const tokenizer = (await loading(params, location, () =>
    AutoTokenizer.from_pretrained(location.reference, { local_files_only: !params.allowRemote, cache_dir: resolve(params.cacheDir) }),
  )) as unknown as { encode(text: string): number[] };
  return (texts) => texts.map((text) => Math.min(tokenizer.encode(text).length, params.maxTokens));
}
