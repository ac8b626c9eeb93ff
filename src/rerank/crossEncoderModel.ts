import { AutoModelForSequenceClassification, Tensor } from '@huggingface/transformers';
import pLimit from 'p-limit';
import { ConfigError, InputError } from '../errors.js';
import { mapInLengthBatches } from '../models/lengthBatches.js';
import { loadingModel, loadTokenizer, prepareModel, pretrainedOptions, type ModelRole } from '../models/modelLoading.js';
import { siblingWorker, WorkerPool } from '../models/workerPool.js';
import type { CrossEncoderParams } from './crossEncoderParams.js';

/** One (query, passage) pair as model inputs, passage already cut to fit. */
export interface EncodedPair {
  inputIds: number[];
  tokenTypeIds: number[] | null;
  /** Passage tokens dropped to fit `maxTokens`. */
  passageTokensCut: number;
}

/** A loaded cross-encoder: pairs in, one logit per pair out (batched by length, in input order). */
export interface CrossEncoderModel extends PairEncoder {
  logits(pairs: EncodedPair[]): Promise<number[]>;
  dispose(): Promise<void>;
}

/** The parts of a transformers.js tokenizer the pair encoder uses (v3 API). */
interface PairTokenizer {
  tokenize(text: string): string[];
  post_processor: ((a: string[], b: string[] | null, options: { add_special_tokens: boolean }) => { tokens: string[]; token_type_ids?: number[] }) | null;
  model: { convert_tokens_to_ids(tokens: string[]): number[] };
  pad_token_id?: number;
}

export type CrossEncoderLoadParams = Pick<CrossEncoderParams, 'model' | 'cacheDir' | 'allowRemote' | 'maxTokens' | 'dtype' | 'batchSize' | 'threads'>;

export const RERANKER_ROLE: ModelRole = { configPath: 'rerank.model', directory: 'cross-encoder directory', fixtureCommand: 'hisrag model fixture --reranker' };

/** The tokenizer side of a cross-encoder: (query, passage) → model inputs, passage cut to fit. */
export interface PairEncoder {
  /** Changes whenever the model files change (local models): part of cache keys. */
  fingerprint: string;
  displayName: string;
  encodePair(query: string, passage: string): EncodedPair;
}

/**
 * Loads the tokenizer and encodes pairs here rather than through the tokenizer's own
 * truncation, which cuts the end of the joined pair (and with it the final separator, or the
 * query when the passage is short): here only the passage loses tokens.
 */
export async function loadPairEncoder(params: CrossEncoderLoadParams): Promise<PairEncoder> {
  const { tokenizer, location, fingerprint } = await loadTokenizer<PairTokenizer>(params, RERANKER_ROLE, `maxTokens=${params.maxTokens}`);
  const postProcess = tokenizer.post_processor;
  if (!postProcess) throw new ConfigError(`rerank.model: ${params.model}'s tokenizer.json has no post_processor, so pairs cannot be joined`);
  const special = postProcess(['a'], ['b'], { add_special_tokens: true }).tokens.length - 2;
  return {
    fingerprint,
    displayName: location.displayName,
    encodePair(query, passage) {
      const queryTokens = tokenizer.tokenize(query);
      const budget = params.maxTokens - special - queryTokens.length;
      if (budget < 1) {
        throw new InputError(`rerank: the query is ${queryTokens.length} tokens, leaving no room for a passage within maxTokens ${params.maxTokens} (queries are never cut): "${query.slice(0, 40)}…"`);
      }
      const passageTokens = tokenizer.tokenize(passage);
      const kept = passageTokens.slice(0, budget);
      const joined = postProcess(queryTokens, kept, { add_special_tokens: true });
      return {
        inputIds: tokenizer.model.convert_tokens_to_ids(joined.tokens),
        tokenTypeIds: joined.token_type_ids ?? null,
        passageTokensCut: passageTokens.length - kept.length,
      };
    },
  };
}

/** The model side of a cross-encoder: one batch of encoded pairs → one logit each. */
export interface CrossEncoderSession {
  batchLogits(pairs: EncodedPair[]): Promise<number[]>;
  dispose(): Promise<void>;
}

/** Loads a sequence-classification model (bge-reranker: XLM-RoBERTa, one logit; or BERT-style) through transformers.js. */
export async function loadCrossEncoderSession(params: CrossEncoderLoadParams): Promise<CrossEncoderSession> {
  const { location } = prepareModel(params, RERANKER_ROLE);
  const model = await loadingModel(params, RERANKER_ROLE, location, () =>
    AutoModelForSequenceClassification.from_pretrained(location.reference, pretrainedOptions(params)),
  );
  const config = model.config as unknown as { id2label?: Record<string, string>; num_labels?: number; pad_token_id?: number };
  const labels = config.id2label ? Object.keys(config.id2label).length : (config.num_labels ?? 1);
  if (labels !== 1) {
    await model.dispose();
    throw new ConfigError(`rerank.model: ${params.model} has ${labels} labels; a cross-encoder reranker gives one relevance logit per pair`);
  }
  const padId = config.pad_token_id ?? 0;
  const needsTypes = (model as unknown as { sessions: { model: { inputNames: string[] } } }).sessions.model.inputNames.includes('token_type_ids');
  // One model call at a time: concurrent callers (server requests, concurrent items) queue.
  const oneAtATime = pLimit(1);
  return {
    batchLogits: (pairs) =>
      oneAtATime(async () => {
        const width = Math.max(...pairs.map((p) => p.inputIds.length));
        const ids = new BigInt64Array(pairs.length * width).fill(BigInt(padId));
        const mask = new BigInt64Array(pairs.length * width);
        const types = new BigInt64Array(pairs.length * width);
        pairs.forEach((pair, row) => {
          pair.inputIds.forEach((id, col) => {
            ids[row * width + col] = BigInt(id);
            mask[row * width + col] = 1n;
            types[row * width + col] = BigInt(pair.tokenTypeIds?.[col] ?? 0);
          });
        });
        const dims = [pairs.length, width];
        const inputs: Record<string, Tensor> = { input_ids: new Tensor('int64', ids, dims), attention_mask: new Tensor('int64', mask, dims) };
        if (needsTypes) inputs.token_type_ids = new Tensor('int64', types, dims);
        const { logits } = (await model(inputs)) as { logits: Tensor };
        if (logits.dims.length !== 2 || logits.dims[0] !== pairs.length || logits.dims[1] !== 1) {
          throw new ConfigError(`rerank.model: ${params.model} returned logits [${logits.dims.join(', ')}] for ${pairs.length} pairs (expected [${pairs.length}, 1])`);
        }
        const values = Array.from(logits.data as Float32Array);
        logits.dispose();
        return values;
      }),
    async dispose() {
      await model.dispose();
    },
  };
}

/** The session in `count` worker processes (`crossEncoderWorker.ts`); pairs are encoded here, a batch goes to whichever worker is idle. */
async function startCrossEncoderWorkers(params: CrossEncoderLoadParams, count: number): Promise<CrossEncoderSession> {
  const { pool } = await WorkerPool.start<CrossEncoderLoadParams, null, EncodedPair[], number[]>(
    siblingWorker(import.meta.url, 'crossEncoderWorker'),
    'cross-encoder worker',
    params,
    count,
  );
  return { batchLogits: (pairs) => pool.run(pairs), dispose: () => pool.dispose() };
}

/** Logits of encoded pairs in input order: grouped by token length into batches, `parallel` batches in flight. */
export function batchedLogits(session: Pick<CrossEncoderSession, 'batchLogits'>, pairs: EncodedPair[], batchSize: number, parallel = 1): Promise<number[]> {
  return mapInLengthBatches(pairs.map((p) => p.inputIds.length), batchSize, parallel, (batch) => session.batchLogits(batch.map((i) => pairs[i]!)));
}

/**
 * Loads the tokenizer here and the model here (`workers` 0) or in `workers` worker processes
 * (each with `threads` onnxruntime threads, default 1), one batch in flight per worker.
 */
export async function loadCrossEncoder(params: CrossEncoderLoadParams & { workers?: number }): Promise<CrossEncoderModel> {
  const encoder = await loadPairEncoder(params);
  const workers = params.workers ?? 0;
  const session = workers === 0 ? await loadCrossEncoderSession(params) : await startCrossEncoderWorkers({ ...params, threads: params.threads ?? 1 }, workers);
  return {
    ...encoder,
    logits: (pairs) => batchedLogits(session, pairs, params.batchSize, Math.max(1, workers)),
    dispose: () => session.dispose(),
  };
}
