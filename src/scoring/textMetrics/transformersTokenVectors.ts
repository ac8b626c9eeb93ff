import { resolve } from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import { ConfigError } from '../../errors.js';
import type { TokenVectors } from './bertScore.js';

export interface TokenVectorOptions {
  /** Local model directory or hub id (resolved in `cacheDir`), as for the embedder. */
  model: string;
  cacheDir?: string;
  allowRemote?: boolean;
  dtype?: 'fp32' | 'q8';
  /** Longer texts are truncated to this many tokens. */
  maxTokens?: number;
}

export interface LoadedTokenVectors {
  tokenVectors: TokenVectors;
  dispose(): Promise<void>;
}

/**
 * Token vectors from a transformers.js encoder: the `feature-extraction` pipeline with
 * pooling 'none', [CLS] and [SEP] dropped — the input BERTScore matches greedily.
 */
export async function loadTransformersTokenVectors(options: TokenVectorOptions): Promise<LoadedTokenVectors> {
  // Loaded on demand: the scorer itself must not pull in onnxruntime.
  const [{ pipeline }, { locateModel }] = await Promise.all([import('@huggingface/transformers'), import('../../models/modelLoading.js')]);
  const location = locateModel(options.model);
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = (await pipeline('feature-extraction', location.reference, {
      dtype: options.dtype ?? 'fp32',
      local_files_only: !(options.allowRemote ?? false),
      cache_dir: resolve(options.cacheDir ?? '.cache/models'),
    })) as FeatureExtractionPipeline;
  } catch (error) {
    throw new ConfigError(`bertScore.model: cannot load "${options.model}": ${(error as Error).message}`);
  }
  const tokenizer = extractor.tokenizer as unknown as { model_max_length: number };
  const maxTokens = options.maxTokens ?? 512;
  tokenizer.model_max_length = Math.min(tokenizer.model_max_length ?? maxTokens, maxTokens);
  return {
    async tokenVectors(text) {
      if (!text.trim()) return [];
      const output = await extractor(text, { pooling: 'none', normalize: false });
      const [, tokens, width] = output.dims as [number, number, number];
      const data = output.data as Float32Array;
      const vectors: number[][] = [];
      for (let t = 1; t < tokens - 1; t++) vectors.push(Array.from(data.subarray(t * width, (t + 1) * width)));
      output.dispose();
      return vectors;
    },
    dispose: () => extractor.dispose(),
  };
}
