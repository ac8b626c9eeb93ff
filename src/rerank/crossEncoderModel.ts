import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AutoModelForSequenceClassification, AutoTokenizer, Tensor } from '@huggingface/transformers';
import pLimit from 'p-limit';
import { ConfigError, InputError } from '../errors.js';
import { locateModel, type ModelLocation } from '../embedding/transformersModel.js';
import { planBatchesByLength } from '../embedding/lengthBatches.js';
import type { CrossEncoderParams } from './crossEncoderParams.js';

/** One (query, passage) pair as model inputs, passage already cut to fit. */
export interface EncodedPair {
  inputIds: number[];
  tokenTypeIds: number[] | null;
  /** Passage tokens dropped to fit `maxTokens`. */
  passageTokensCut: number;
}

/** A loaded cross-encoder: pairs in, one logit per pair out. */
export interface CrossEncoderModel {
  /** Changes whenever the model files change (local models): part of cache keys. */
  fingerprint: string;
  displayName: string;
  encodePair(query: string, passage: string): EncodedPair;
  /** Logits of encoded pairs, batched by length; in input order. */
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

function checkLocalModel(dir: string, dtype: CrossEncoderParams['dtype']): string {
  const onnxFile = join(dir, 'onnx', dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
  for (const path of [join(dir, 'config.json'), join(dir, 'tokenizer.json'), join(dir, 'tokenizer_config.json'), onnxFile]) {
    if (!existsSync(path)) {
      throw new ConfigError(
        `rerank.model: ${path} is missing (a cross-encoder directory holds config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx` +
          `${dtype === 'q8' ? ' and onnx/model_quantized.onnx for dtype q8' : ''}; \`hisrag model fixture --reranker\` generates one)`,
      );
    }
  }
  return onnxFile;
}

async function loading<T>(params: CrossEncoderLoadParams, location: ModelLocation, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const hint = location.localDir
      ? ''
      : ` (looked in ${join(resolve(params.cacheDir), params.model)}; set allowRemote: true to download it, or point model at a local directory)`;
    throw new ConfigError(`rerank.model: cannot load "${params.model}"${hint}: ${(error as Error).message}`);
  }
}

/** Checks a local model directory (before anything loads) and computes the model's fingerprint. */
function prepare(params: CrossEncoderLoadParams): { location: ModelLocation; fingerprint: string } {
  const location = locateModel(params.model);
  let fingerprint = `${location.displayName}|${params.dtype}|maxTokens=${params.maxTokens}`;
  if (location.localDir) {
    const stat = statSync(checkLocalModel(location.localDir, params.dtype));
    fingerprint += `|${stat.size}|${stat.mtimeMs}`;
  }
  return { location, fingerprint };
}

/** The tokenizer side of a cross-encoder: (query, passage) → model inputs, passage cut to fit. */
export interface PairEncoder {
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
  const { location, fingerprint } = prepare(params);
  const options = { local_files_only: !params.allowRemote, cache_dir: resolve(params.cacheDir) };
  const tokenizer = (await loading(params, location, () => AutoTokenizer.from_pretrained(location.reference, options))) as unknown as PairTokenizer;
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
  const { location } = prepare(params);
  const model = await loading(params, location, () =>
    AutoModelForSequenceClassification.from_pretrained(location.reference, {
      local_files_only: !params.allowRemote,
      cache_dir: resolve(params.cacheDir),
      dtype: params.dtype,
      session_options: params.threads ? { intraOpNumThreads: params.threads, interOpNumThreads: 1 } : {},
    }),
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

/** Logits of encoded pairs in input order: grouped by token length into batches, `parallel` batches in flight. */
export async function batchedLogits(session: Pick<CrossEncoderSession, 'batchLogits'>, pairs: EncodedPair[], batchSize: number, parallel = 1): Promise<number[]> {
  const out: number[] = new Array(pairs.length);
  const limit = pLimit(parallel);
  await Promise.all(
    planBatchesByLength(pairs.map((p) => p.inputIds.length), batchSize).map((batch) =>
      limit(async () => {
        const values = await session.batchLogits(batch.map((i) => pairs[i]!));
        batch.forEach((pairIndex, j) => (out[pairIndex] = values[j]!));
      }),
    ),
  );
  return out;
}

/**
 * Loads the tokenizer here and the model here (`workers` 0) or in `workers` worker processes
 * (each with `threads` onnxruntime threads, default 1), one batch in flight per worker.
 */
export async function loadCrossEncoder(params: CrossEncoderLoadParams & { workers?: number }): Promise<CrossEncoderModel> {
  const encoder = await loadPairEncoder(params);
  const workers = params.workers ?? 0;
  const session = workers === 0
    ? await loadCrossEncoderSession(params)
    : await (await import('./crossEncoderWorkerPool.js')).CrossEncoderWorkerPool.start({ ...params, threads: params.threads ?? 1 }, workers);
  return {
    ...encoder,
    logits: (pairs) => batchedLogits(session, pairs, params.batchSize, Math.max(1, workers)),
    dispose: () => session.dispose(),
  };
}
