import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModelForCausalLM, Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CausalLmParamsSchema, loadCausalLmScorer, type CausalLmScorer } from '../../src/methods/compression/causalLmScorer.js';
import { keptRuns, selectTokens } from '../../src/methods/compression/selectTokens.js';
import { CAUSAL_LM_FIXTURE_PREDICTABLE, generateCausalLmFixture } from '../../src/models/fixture/causalLmFixture.js';
import { runCli } from '../helpers/runCli.js';

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Passages of the kind the demo retrieves: classical and modern Chinese, dates and names. */
const PASSAGES = [
  '殿试是科举制度中最高一级的考试，由皇帝亲自主持。宋太祖开宝六年（973年），因知贡举李昉取士不公，太祖于讲武殿亲自复试，殿试自此成为定制。',
  '光绪三十一年（1905年），袁世凯、张之洞等奏请立停科举，以广学校，清廷准其所请，延续一千三百余年的科举制度遂告废除。',
  '童试包括县试、府试和院试三级，县试由知县主持，府试由知府主持，院试由各省学政主持，通过院试者称为生员，俗称秀才。',
  '九品中正制为魏文帝曹丕采纳陈群的建议而创立，由中正官品评人物，分为九品，以定其仕进之途。',
];

describe('the generated causal-LM fixture (hisrag model fixture --kind causal-lm)', () => {
  let dir: string;
  let scorer: CausalLmScorer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-causal-lm-'));
    await generateCausalLmFixture({ outDir: join(dir, 'a'), seed: 7 });
    scorer = await loadCausalLmScorer(CausalLmParamsSchema.parse({ model: join(dir, 'a') }));
  }, 120_000);
  afterAll(async () => {
    await scorer?.dispose();
  });

  it('is deterministic from its seed, and another seed gives other weights', async () => {
    await generateCausalLmFixture({ outDir: join(dir, 'b'), seed: 7 });
    await generateCausalLmFixture({ outDir: join(dir, 'c'), seed: 8 });
    expect(sha(join(dir, 'b', 'onnx', 'model.onnx'))).toBe(sha(join(dir, 'a', 'onnx', 'model.onnx')));
    expect(sha(join(dir, 'c', 'onnx', 'model.onnx'))).not.toBe(sha(join(dir, 'a', 'onnx', 'model.onnx')));
    expect(JSON.parse(readFileSync(join(dir, 'a', 'config.json'), 'utf8'))).toMatchObject({ model_type: 'gpt2', hisrag_fixture: { kind: 'causal-lm', seed: 7 } });
  });

  it('loads through transformers.js AutoModelForCausalLM as a GPT-2 model with next-token logits', async () => {
    const model = await AutoModelForCausalLM.from_pretrained(join(dir, 'a'), { local_files_only: true, dtype: 'fp32' });
    expect(model.constructor.name).toBe('GPT2LMHeadModel');
    const ids = scorer.tokenize('殿试由皇帝主持');
    const output = (await model({
      input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
      attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
    })) as { logits: Tensor };
    expect(output.logits.dims).toEqual([1, ids.length, 21226]);
    await model.dispose();
  });

  it('gives function characters less self-information than names and dates', async () => {
    const { ids, information } = await scorer.score('殿试成为定制始于何时？', PASSAGES[0]!);
    expect(information).toHaveLength(ids.length);
    const chars = ids.map((id) => scorer.decode([id]));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const predictable = information.filter((_, i) => CAUSAL_LM_FIXTURE_PREDICTABLE.includes(chars[i]!));
    const other = information.filter((_, i) => !CAUSAL_LM_FIXTURE_PREDICTABLE.includes(chars[i]!));
    expect(predictable.length).toBeGreaterThan(3);
    expect(mean(predictable)).toBeLessThan(mean(other) - 3);
    // With no question before it, a text's first token has nothing to be predicted from: it is always kept.
    expect((await scorer.score('', PASSAGES[0]!)).information[0]).toBe(Number.MAX_VALUE);
  });

  it('keeps the configured share of tokens within ±5%, counted again on the compressed text', async () => {
    const scored = await Promise.all(PASSAGES.map((p) => scorer.score('科举制度的考试', p)));
    const before = scored.reduce((n, s) => n + s.ids.length, 0);
    for (const ratio of [0.1, 0.3, 0.5, 0.8, 1]) {
      const kept = selectTokens(scored, Math.round(ratio * before));
      const texts = scored.map((s, i) => keptRuns(s.ids, kept[i]!).map((run) => scorer.decode(run)).join(''));
      const after = texts.reduce((n, t) => n + scorer.tokenize(t).length, 0);
      expect(Math.abs(after / before - ratio), `ratio ${ratio}: ${after}/${before}`).toBeLessThanOrEqual(0.05 * ratio);
      // Kept text is the passages' own characters, in order, with no spaces the WordPiece decoder put between CJK characters.
      for (const [i, text] of texts.entries()) {
        expect(text).not.toMatch(/[\u4e00-\u9fff] [\u4e00-\u9fff]/);
        let at = 0;
        for (const ch of text.replace(/\s/g, '')) {
          at = PASSAGES[i]!.indexOf(ch, at);
          expect(at, `${ch} of ${text}`).toBeGreaterThanOrEqual(0);
          at++;
        }
      }
    }
    // The least informative go first: at ratio 0.5 most function characters are gone.
    const half = selectTokens(scored, Math.round(before / 2));
    const droppedPredictable = scored.flatMap((s, i) => s.ids.filter((id, j) => !half[i]![j] && CAUSAL_LM_FIXTURE_PREDICTABLE.includes(scorer.decode([id]))));
    const allPredictable = scored.flatMap((s) => s.ids.filter((id) => CAUSAL_LM_FIXTURE_PREDICTABLE.includes(scorer.decode([id]))));
    expect(droppedPredictable.length / allPredictable.length).toBeGreaterThan(0.8);
  });

  it('the CLI writes it, and refuses an unknown kind', async () => {
    const out = join(dir, 'cli');
    const made = await runCli(['model', 'fixture', '--kind', 'causal-lm', '--out', out, '--seed', '7']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('causal-lm fixture model (generated stand-in');
    expect(sha(join(out, 'onnx', 'model.onnx'))).toBe(sha(join(dir, 'a', 'onnx', 'model.onnx')));
    const wrong = await runCli(['model', 'fixture', '--kind', 'decoder', '--out', join(dir, 'x')]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('--kind: expected clip or causal-lm, got "decoder"');
  }, 120_000);
});
