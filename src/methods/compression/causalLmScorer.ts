import pLimit from 'p-limit';
import { AutoModelForCausalLM, AutoTokenizer, Tensor } from '@huggingface/transformers';
import { loadingModel, prepareModel, pretrainedOptions, type ModelRole } from '../../models/modelLoading.js';
import { readFixtureRecord } from '../../runFiles/modelFiles.js';
import { TokenLogProbs } from './tokenLogProbs.js';
import type { CausalLmParams } from './causalLmParams.js';

export { CausalLmParamsSchema, type CausalLmParams } from './causalLmParams.js';

/** The causal LM whose next-token probabilities say how much information each context token carries. */
const ROLE: ModelRole = {
  configPath: 'compress.scorer.model',
  directory: 'causal LM directory',
  fixtureCommand: 'hisrag model fixture --kind causal-lm --out models/causal-lm-fixture',
};

/** A text as the scorer's tokens, each with its self-information −log p(token | question, preceding tokens) in nats. */
export interface ScoredTokens {
  ids: number[];
  information: number[];
}

export interface CausalLmScorer {
  /** `model`, and for a generated fixture what it stands in for. */
  readonly description: string;
  readonly isFixture: boolean;
  tokenize(text: string): number[];
  /** Self-information of each token of `text`, conditioned on `prefix` (the question) and the text before it. */
  score(prefix: string, text: string): Promise<ScoredTokens>;
  /** The text of a run of consecutive token ids (spaces a WordPiece decoder puts between CJK characters removed). */
  decode(ids: number[]): string;
  dispose(): Promise<void>;
}

interface Tokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  decode(ids: number[], options: { skip_special_tokens: boolean; clean_up_tokenization_spaces?: boolean }): string;
}

/** Scored passages kept in memory. */
const CACHE_SIZE = 20_000;

const CJK = '\\u3000-\\u303f\\u3400-\\u9fff\\uff00-\\uffef';
const SPACE_BETWEEN_CJK = new RegExp(`(?<=[${CJK}])\\s+(?=[${CJK}])`, 'g');

function fixtureNote(dir: string | undefined): string | undefined {
  if (!dir) return undefined;
  return readFixtureRecord(dir)?.kind === 'causal-lm' ? 'generated fixture causal LM: an offline stand-in for a small causal LM such as Qwen2.5-0.5B (seeded bigram logits; only function characters are predictable)' : undefined;
}

/**
 * Loads a causal LM through transformers.js' AutoModelForCausalLM (a hub export's decoder, its
 * past-key-value inputs left empty by transformers.js, or the generated fixture) and its tokenizer.
 * One forward pass at a time: concurrent items queue, as the cross-encoder's do.
 */
export async function loadCausalLmScorer(params: CausalLmParams): Promise<CausalLmScorer> {
  const { location } = prepareModel(params, ROLE);
  const options = pretrainedOptions(params);
  const [tokenizer, model] = await loadingModel(params, ROLE, location, () =>
    Promise.all([
      AutoTokenizer.from_pretrained(location.reference, { local_files_only: options.local_files_only, cache_dir: options.cache_dir }) as unknown as Promise<Tokenizer>,
      AutoModelForCausalLM.from_pretrained(location.reference, options),
    ]),
  );
  const logProbs = await TokenLogProbs.create(params.threads);
  const note = fixtureNote(location.localDir);
  // The same passage under the same question is scored once (a run's depths share their top passages; a resumed run rescores only what it lost).
  const cache = new Map<string, Promise<ScoredTokens>>();
  const oneAtATime = pLimit(1);
  const tokenize = (text: string) => tokenizer.encode(text, { add_special_tokens: false });
  const forward = (ids: number[]) =>
    oneAtATime(async () => {
      const inputIds = new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
      const mask = new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]);
      const output = (await model({ input_ids: inputIds, attention_mask: mask })) as { logits: Tensor };
      const [, , width] = output.logits.dims as [number, number, number];
      return { logits: output.logits.data as Float32Array, width: width! };
    });
  const scoreText = async (prefix: string, text: string): Promise<ScoredTokens> => {
    const prefixIds = tokenize(prefix).slice(-Math.floor(params.maxTokens / 2));
    const ids = tokenize(text);
    const information: number[] = [];
    // Windows of the text, each after the question: token j is predicted from the logits at the position before it.
    const window = params.maxTokens - prefixIds.length;
    for (let start = 0; start < ids.length; start += window) {
      const part = ids.slice(start, start + window);
      const { logits, width } = await forward([...prefixIds, ...part]);
      // Rows prefix − 1 … end − 2 predict the part's tokens; with no prefix the first token has no row and is kept.
      const first = prefixIds.length === 0 ? 1 : 0;
      if (first) information.push(Number.MAX_VALUE);
      const rowsFrom = (prefixIds.length + first - 1) * width;
      const logp = await logProbs.compute(logits.subarray(rowsFrom), width, part.slice(first));
      for (const value of logp) information.push(-value);
    }
    return { ids, information };
  };
  return {
    description: `${location.displayName}${note ? ` (${note})` : ''}`,
    isFixture: note !== undefined,
    tokenize,
    score(prefix, text) {
      const key = `${prefix}\u0000${text}`;
      let found = cache.get(key);
      if (!found) {
        if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
        found = scoreText(prefix, text);
        cache.set(key, found);
        found.catch(() => cache.delete(key));
      }
      return found;
    },
    // A run may start inside a word: a WordPiece continuation (`##7` of `973`) decodes with its marker, a byte-level BPE piece of a split character as U+FFFD.
    decode: (ids) => tokenizer.decode(ids, { skip_special_tokens: true }).replace(/^##/, '').replace(SPACE_BETWEEN_CJK, '').replace(/\ufffd/g, ''),
    dispose: async () => {
      await model.dispose();
      await logProbs.close();
    },
  };
}
