import { Embeddings } from '@langchain/core/embeddings';
import { createProgress } from '../progress/progress.js';
import { ConfigError, parseWith } from '../errors.js';
import type { EmbedderIdentity, TextEmbedder } from './types.js';
import { TransformersEmbedderParamsSchema, type TransformersEmbedderConfig, type TransformersEmbedderParams } from './transformersParams.js';
import { loadTransformersModel, startTransformersWorkers, type TransformersModel } from './transformersModel.js';
import { locateModel, modelFiles } from '../models/modelLoading.js';
import { modelFingerprint } from '../models/modelFingerprint.js';
import { mapInLengthBatches } from '../models/lengthBatches.js';
import { CachedEmbedder } from './cachedEmbedder.js';

/**
 * Embeds with an ONNX BERT model through transformers.js — `Xenova/bge-large-zh-v1.5` by
 * default, or any local model directory (e.g. one from `hisrag model fixture`). Texts are
 * grouped by token length before batching (less padding), and optionally spread over worker
 * processes (`workers`); vectors come back in input order.
 */
export class TransformersEmbedder extends Embeddings implements TextEmbedder {
  readonly params: TransformersEmbedderParams;
  private model?: Promise<TransformersModel>;

  constructor(config: TransformersEmbedderConfig = {}) {
    super({});
    this.params = parseWith(TransformersEmbedderParamsSchema, config, (problems) => new ConfigError(problems), 'embedder');
  }

  /** Loads the model once (lazily; every method calls it). */
  load(): Promise<TransformersModel> {
    this.model ??= (async () => {
      const { workers } = this.params;
      if (workers === 0) return loadTransformersModel(this.params);
      return startTransformersWorkers({ ...this.params, threads: this.params.threads ?? 1 }, workers);
    })();
    // A failed load may be retried (e.g. after the model has been generated).
    this.model.catch(() => (this.model = undefined));
    return this.model;
  }

  async identity(): Promise<EmbedderIdentity> {
    const model = await this.load();
    const { pooling, normalize, queryPrefix } = this.params;
    return { model: locateModel(this.params.model).displayName, dimension: model.dimension, pooling, normalize, queryPrefix };
  }

  /** sha256 of the model's files (config, tokenizer, ONNX weights), cached beside the model by size + mtime. */
  async fingerprint(): Promise<string> {
    await this.load();
    const files = modelFiles(this.params);
    // A hub model transformers.js loaded from somewhere other than the cache dir: its name and dtype are all we know.
    if (!files) return `${this.params.model}|${this.params.dtype}`;
    return modelFingerprint(files.dir, files.onnxFile);
  }

  /** What else changes the vectors (dtype, truncation, the model files themselves): part of cache keys. */
  async variantKey(): Promise<string> {
    const model = await this.load();
    return `${model.fingerprint}|maxTokens=${this.params.maxTokens}`;
  }

  /** Token counts after truncation, [CLS] and [SEP] included. */
  async countTokens(texts: string[]): Promise<number[]> {
    return (await this.load()).countTokens(texts);
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    if (documents.length === 0) return [];
    const model = await this.load();
    const progress = createProgress({ label: 'embedding', total: documents.length, unit: 'texts', silent: !this.params.progress });
    try {
      return await mapInLengthBatches(model.countTokens(documents), this.params.batchSize, model.parallel, async (indexes) => {
        const batch = await model.embedBatch(indexes.map((i) => documents[i]!));
        progress.tick(indexes.length);
        return batch.map((vector) => Array.from(vector));
      });
    } finally {
      progress.stop();
    }
  }

  async embedQuery(query: string): Promise<number[]> {
    const [vector] = await this.embedDocuments([this.params.queryPrefix + query]);
    return vector!;
  }

  async dispose(): Promise<void> {
    const model = this.model;
    this.model = undefined;
    if (model) await (await model).dispose();
  }
}

/** Builds the embedder, wrapped in the on-disk cache when `cacheFile` is set. */
export function createTransformersEmbedder(config: TransformersEmbedderConfig = {}): TextEmbedder {
  const embedder = new TransformersEmbedder(config);
  return embedder.params.cacheFile ? new CachedEmbedder(embedder, embedder.params.cacheFile) : embedder;
}
