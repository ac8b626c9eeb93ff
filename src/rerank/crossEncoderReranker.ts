import { ConfigError, parseWith } from '../errors.js';
import { CrossEncoderParamsSchema, type CrossEncoderConfig, type CrossEncoderParams } from './crossEncoderParams.js';
import { loadCrossEncoder, type CrossEncoderModel } from './crossEncoderModel.js';
import { PairScoreCache } from './pairScoreCache.js';
import { PairScoreStore } from './pairScoreStore.js';
import type { Reranker, RerankerDescription, RerankOutcome } from './types.js';

/** bge-reranker's relevance score: the sigmoid of its one logit (0–1). */
export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Scores each (query, passage) pair with a cross-encoder through transformers.js — BAAI's
 * bge-reranker family by default, or a local directory such as the generated fixture — and
 * keeps recent pair scores in memory. The model loads on first use.
 */
export class CrossEncoderReranker implements Reranker {
  readonly name = 'cross-encoder';
  readonly params: CrossEncoderParams;
  private model?: Promise<CrossEncoderModel>;
  private cache?: PairScoreCache;
  private store?: PairScoreStore;
  /** Pairs whose passage was cut to fit maxTokens. */
  truncatedPairs = 0;

  constructor(config: CrossEncoderConfig = {}) {
    this.params = parseWith(CrossEncoderParamsSchema, config, (problems) => new ConfigError(problems), 'rerank');
  }

  load(): Promise<CrossEncoderModel> {
    this.model ??= loadCrossEncoder(this.params).then((model) => {
      this.cache = new PairScoreCache(model.fingerprint, this.params.cacheSize);
      if (this.params.cacheFile) this.store ??= new PairScoreStore(this.params.cacheFile);
      return model;
    });
    this.model.catch(() => (this.model = undefined));
    return this.model;
  }

  /** Relevance scores (sigmoid of the logit, 0–1) of each passage against the query, in input order. */
  async score(query: string, passages: string[]): Promise<number[]> {
    return (await this.logits(query, passages)).map(sigmoid);
  }

  /** The model's raw logits of each (query, passage) pair, in input order; cached by pair. */
  async logits(query: string, passages: string[]): Promise<number[]> {
    const model = await this.load();
    const cache = this.cache!;
    const keys = passages.map((passage) => cache.key(query, passage));
    const scores = keys.map((key) => cache.get(key) ?? this.store?.get(key));
    const todo = scores.flatMap((score, i) => (score === undefined ? [i] : []));
    if (todo.length) {
      const pairs = todo.map((i) => model.encodePair(query, passages[i]!));
      this.truncatedPairs += pairs.filter((p) => p.passageTokensCut > 0).length;
      const logits = await model.logits(pairs);
      todo.forEach((passageIndex, j) => (scores[passageIndex] = logits[j]!));
      this.store?.putMany(todo.map((passageIndex, j) => [keys[passageIndex]!, logits[j]!]));
    }
    keys.forEach((key, i) => cache.set(key, scores[i]!));
    return scores as number[];
  }

  async rerank(query: string, passages: string[]): Promise<RerankOutcome> {
    return { scores: passages.length ? await this.score(query, passages) : [] };
  }

  describe(): RerankerDescription {
    const { model, dtype, maxTokens, batchSize, workers } = this.params;
    return { name: this.name, model, dtype, maxTokens, batchSize, workers, score: 'sigmoid(logit)' };
  }

  async close(): Promise<void> {
    const model = this.model;
    this.model = undefined;
    this.store?.close();
    this.store = undefined;
    if (model) await (await model).dispose();
  }
}
