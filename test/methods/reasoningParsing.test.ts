import { describe, expect, it } from 'vitest';
import { ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import { LogprobWriterGenerator } from '../../src/generation/logprobWriter.js';
import { firstSentence, maskedQuery } from '../../src/methods/flare.js';
import { parseMethodSpec } from '../../src/methods/registry.js';
import { answerOf, parseStep, SEARCHER_PROTOCOLS } from '../../src/methods/searcher.js';

describe('reading a search model\'s output', () => {
  const tags = SEARCHER_PROTOCOLS['search-r1'];
  it('finds the query the endpoint stopped at, with the closing tag left out or kept', () => {
    expect(parseStep('<think>先查<search>科举 起源', tags.query)).toEqual({ written: '<think>先查<search>科举 起源</search>', query: '科举 起源' });
    // vLLM include_stop_str_in_output: the tag kept, and anything after it dropped (the result goes there).
    expect(parseStep('先查<search>科举</search>\n<information>编造', tags.query)).toEqual({ written: '先查<search>科举</search>', query: '科举' });
    expect(parseStep('不查了，<answer>隋</answer>', tags.query)).toEqual({ written: '不查了，<answer>隋</answer>' });
    // An empty query is no search.
    expect(parseStep('想一想<search>  ', tags.query).query).toBeUndefined();
  });

  it('takes the answer from its tags, else after the reasoning, else after the last result', () => {
    expect(answerOf('<think>…</think><answer> 隋朝 </answer>', tags)).toBe('隋朝');
    expect(answerOf('<think>推理</think>\n隋朝', { ...tags, answer: undefined })).toBe('隋朝');
    expect(answerOf('<search>q</search><information>x</information>\n隋朝', { ...tags, answer: undefined })).toBe('隋朝');
  });

  it('refuses a custom protocol without its tags, naming the field', () => {
    expect(() => parseMethodSpec({ name: 'searcher', protocol: 'custom' }, 'strategies[3]')).toThrow(/strategies\[3\]\.tags: protocol custom needs tags/);
    expect(parseMethodSpec({ name: 'searcher', protocol: 'custom', tags: { query: ['<q>', '</q>'], result: ['<r>', '</r>'] } }, 'strategies[3]')).toMatchObject({ protocol: 'custom' });
  });
});

describe('FLARE\'s look-ahead', () => {
  const tokens = [...'科举始于隋朝。唐'].map((token, i) => ({ token, logprob: i === 4 || i === 5 ? Math.log(0.1) : Math.log(0.9) }));
  it('keeps the first sentence and the tokens that wrote it', () => {
    const step = firstSentence('科举始于隋朝。唐', tokens);
    expect(step.sentence).toBe('科举始于隋朝。');
    expect(step.tokens.map((t) => t.token).join('')).toBe('科举始于隋朝。');
    expect(step.rest).toBe('唐');
  });
  it('masks the tokens below θ for the query', () => {
    expect(maskedQuery(firstSentence('科举始于隋朝。唐', tokens).tokens, 0.4)).toBe('科举始于。');
  });
});

describe('the logprob-writer stand-in', () => {
  it('is confident where a passage supports its sentence and unsure where it guesses; logprobs only when asked', async () => {
    const writer = new LogprobWriterGenerator(ExtractiveParamsSchema.parse({}));
    const prompt = (context: string) => [{ role: 'user' as const, content: `${context}\n\n【问题】殿试由谁主持？\n\n【已写回答】\n（尚无）\n\n【要求】作答` }];
    const supported = await writer.generate(prompt('【资料1】《殿试》\n殿试由皇帝亲自主持，考策问。\n【资料结束】'), { call: { logprobs: true } });
    expect(supported.text).toBe('殿试由皇帝亲自主持，考策问。');
    expect(supported.logprobs!.every((t) => Math.exp(t.logprob) > 0.9)).toBe(true);
    expect(supported.finishReason).toBe('stop');
    const guessed = await writer.generate(prompt('（无资料）'), { call: { logprobs: true } });
    expect(guessed.text).toBe('殿试由谁主持，史料所载不详。');
    expect(Math.min(...guessed.logprobs!.map((t) => Math.exp(t.logprob)))).toBeCloseTo(0.15, 5);
    expect((await writer.generate(prompt('（无资料）'))).logprobs).toBeUndefined();
  });
});
