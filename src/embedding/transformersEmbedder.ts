import { BatchEmbeddings } from './batchEmbeddings.js';
import { createProgress } from '../progress/progress.js';
import { ConfigError, parseWith } from '../errors.js';
import type { TextEmbedder } from './types.js';
import type { EmbedderIdentity } from '../runFiles/indexManifest.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  TRANSFORMERS_FALLBACK_CONVENTIONS,
  TransformersEmbedderParamsSchema,
  type TransformersEmbedderConfig,
  type TransformersEmbedderParams,
} from './transformersParams.js';
import { resolveConventions, type ResolvedConventions } from './conventions.js';
import type { TransformersModel } from './transformersModel.js';
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
export class TransformersEmbedder extends BatchEmbeddings implements TextEmbedder {
  readonly params: TransformersEmbedderParams;
  private model?: Promise<TransformersModel>;
  private resolved?: ResolvedConventions;

  constructor(config: TransformersEmbedderConfig = {}) {
    super({});
    this.params = parseWith(TransformersEmbedderParamsSchema, config, (problems) => new ConfigError(problems), 'embedder');
  }

  /**
   * Pooling, normalisation and prefixes: the config's fields, else its preset, else the model
   * directory's sentence-transformers files, else bge-large-zh-v1.5's (read once the model is found).
   */
  conventions(): ResolvedConventions {
    if (this.resolved) return this.resolved;
    const { model, cacheDir } = this.params;
    const dir = locateModel(model).localDir ?? join(resolve(cacheDir), model);
    return (this.resolved = resolveConventions(this.params, existsSync(dir) ? dir : undefined, TRANSFORMERS_FALLBACK_CONVENTIONS));
  }

  async conventionSources(): Promise<Record<string, string>> {
    await this.load();
    return this.conventions().sources;
  }

  /** Loads the model once (lazily; every method calls it). */
  load(): Promise<TransformersModel> {
    this.model ??= (async () => {
      this.resolved = undefined;
      const { pooling, normalize } = this.conventions().conventions;
      const params = { ...this.params, pooling, normalize };
      const { workers } = params;
      // Imported on load: creating the embedder (a query vector cache asks its `vectorKey`) loads no runtime.
      const { loadTransformersModel, startTransformersWorkers } = await import('./transformersModel.js');
      if (workers === 0) return loadTransformersModel(params);
      return startTransformersWorkers({ ...params, threads: params.threads ?? 1 }, workers);
    })();
    // A failed load may be retried (e.g. after the model has been generated).
    this.model.catch(() => (this.model = undefined));
    return this.model;
  }

  async identity(): Promise<EmbedderIdentity> {
    const model = await this.load();
    return { model: locateModel(this.params.model).displayName, dimension: model.dimension, ...this.conventions().conventions };
  }

  /** sha256 of the model's files (config, tokenizer, ONNX weights), cached beside the model by size + mtime. */
  async fingerprint(): Promise<string> {
    await this.load();
    const files = modelFiles(this.params);
    // A hub model transformers.js loaded from somewhere other than the cache dir: its name and dtype are all we know.
    if (!files) return `${this.params.model}|${this.params.dtype}`;
    return modelFingerprint(files.dir, files.onnxFile);
  }

  /** Every setting but progress and cacheFile, the conventions, the model's name and files' hash (none for a hub model not downloaded). */
  async vectorKey(): Promise<string | undefined> {
    const files = modelFiles(this.params);
    if (!files) return undefined;
    const { progress: _progress, cacheFile: _cacheFile, ...settings } = this.params;
    const { conventions } = this.conventions();
    return JSON.stringify({ model: locateModel(this.params.model).displayName, settings, conventions, files: await modelFingerprint(files.dir, files.onnxFile) });
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

  /** Documents with the document prefix (none unless a preset, the model files or the config give one). */
  async embedDocuments(documents: string[]): Promise<number[][]> {
    await this.load();
    const { documentPrefix } = this.conventions().conventions;
    return this.embedTexts(documentPrefix ? documents.map((text) => documentPrefix + text) : documents);
  }

  async embedQueries(queries: string[]): Promise<number[][]> {
    await this.load();
    const { queryPrefix } = this.conventions().conventions;
    return this.embedTexts(queries.map((query) => queryPrefix + query));
  }

  /** Texts as given, no prefix: what the model server (`hisrag serve embeddings`) embeds. */
  async embedTexts(documents: string[]): Promise<number[][]> {
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
