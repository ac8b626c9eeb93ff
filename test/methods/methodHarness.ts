import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import { OpenAIGenerator, OpenAIParamsSchema } from '../../src/generation/openai.js';
import { methods } from '../../src/methods/registry.js';
import { MethodRun } from '../../src/methods/methodRun.js';
import type { MethodOutcome } from '../../src/methods/types.js';
import { estimateTokens } from '../../src/text/tokenCounter.js';
import type { RetrievedChunk } from '../../src/retrieval/types.js';
import { characterBigrams, sharedBigrams } from '../../src/generation/lexicalOverlap.js';

/** A ProHist-style open question. */
export function openQuestion(question = '科举制度始于哪个朝代？'): BenchmarkItem {
  return { benchmark: 'test', id: 'q1', kind: 'reference', category: '简答题', question, referenceAnswer: '隋朝', meta: {} };
}

export const PASSAGES: { id: string; title: string; text: string }[] = [
  { id: 'c1', title: '科举', text: '科举是中国古代通过考试选拔官吏的制度。科举始于隋朝，隋炀帝设进士科。' },
  { id: 'c2', title: '殿试', text: '殿试由皇帝亲自主持。殿试始于唐代武则天时。' },
  { id: 'c3', title: '长城', text: '长城始建于春秋战国时期。秦始皇连接各国长城。' },
  { id: 'c4', title: '进士', text: '进士是科举最高一级考试及第者的称号。明清进士分三甲。' },
  { id: 'c5', title: '乡试', text: '乡试在省城贡院举行，三年一次。考中者称举人。' },
];

/** A lexical stand-in for a retriever: passages ranked by shared bigrams with the query (ties: corpus order). */
export function lexicalRetrieve(k: number, log: string[] = [], failQuery?: string): (text: string) => Promise<RetrievedChunk[]> {
  return async (text) => {
    log.push(text);
    if (failQuery !== undefined && text === failQuery) throw new Error('index unavailable (simulated)');
    const grams = characterBigrams(text);
    return PASSAGES.map((p, i) => ({ p, i, s: sharedBigrams(p.text + p.title, grams) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map(({ p, s }, rank) => ({ id: p.id, docId: p.id, title: p.title, text: p.text, meta: {}, score: s, rank: rank + 1 }));
  };
}

/** Relevance by shared bigrams (what a retriever's `relevance` does with its own measure). */
export async function lexicalRelevance(query: string, texts: string[]): Promise<number[]> {
  const grams = characterBigrams(query);
  return texts.map((t) => sharedBigrams(t, grams));
}

/** Runs one method on one item against an OpenAI-compatible server, with a lexical retriever. */
export async function runMethod(
  spec: { name: string } & Record<string, unknown>,
  baseURL: string,
  options: { item?: BenchmarkItem; k?: number; retrieveLog?: string[]; retries?: number; relevance?: boolean; failQuery?: string } = {},
): Promise<{ run: MethodRun; outcome: MethodOutcome }> {
  const method = await methods.create(spec, undefined, 'strategies[0]');
  const generator = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL, model: 'scripted', retries: options.retries ?? 0, retryBaseMs: 1, retryMaxMs: 2, timeoutMs: 5000 }));
  const k = options.k ?? 3;
  const run = new MethodRun({
    item: options.item ?? openQuestion(),
    k,
    generator,
    countTokens: estimateTokens,
    retrieve: lexicalRetrieve(k, options.retrieveLog, options.failQuery),
    ...(options.relevance === false ? {} : { relevance: lexicalRelevance }),
  });
  const outcome = await method.run(run);
  return { run, outcome };
}

/** Runs a method expecting it to fail; returns the error and the run (its trace). */
export async function runMethodFailing(
  spec: { name: string } & Record<string, unknown>,
  baseURL: string,
  options: { item?: BenchmarkItem; k?: number } = {},
): Promise<{ run: MethodRun; error: Error }> {
  const method = await methods.create(spec, undefined, 'strategies[0]');
  const generator = new OpenAIGenerator(OpenAIParamsSchema.parse({ baseURL, model: 'scripted', retries: 0, timeoutMs: 5000 }));
  const run = new MethodRun({ item: options.item ?? openQuestion(), k: options.k ?? 3, generator, countTokens: estimateTokens, retrieve: lexicalRetrieve(options.k ?? 3), relevance: lexicalRelevance });
  try {
    await method.run(run);
  } catch (error) {
    return { run, error: error as Error };
  }
  throw new Error('the method did not fail');
}
