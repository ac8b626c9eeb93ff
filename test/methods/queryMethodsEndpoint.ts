import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ExtractiveGenerator, ExtractiveParamsSchema } from '../../src/generation/extractive.js';
import type { ChatRequestBody } from '../helpers/openaiServer.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

const standIn = new ExtractiveGenerator(ExtractiveParamsSchema.parse({}));

/** Judge prompts get deterministic verdicts; every other prompt the stand-in's reply — a model that follows each method's steps. */
export function queryMethodResponder(request: ChatRequestBody): string {
  const prompt = request.messages.map((m) => m.content).join('\n');
  if (/^(?:加分项|减分项)_\d+: 0或1$/m.test(prompt)) return deterministicResponder(request);
  return standIn.answer(request.messages.map((m) => ({ role: m.role as 'user', content: m.content ?? '' })));
}

/** The query-side, corrective and compression methods as the endpoint tests run them (k = 4). */
export const queryMethodStrategies = (dir: string) => [
  'standard',
  { name: 'hyde', hypotheses: 2 },
  'query-rewrite',
  { name: 'rag-fusion', queries: 3 },
  { name: 'crag', upper: 0.6, lower: 0.3, fallback: { name: 'bm25', index: join(dir, 'bm25') } },
  { name: 'compress', ratio: 0.5, scorer: { model: join(dir, 'causal-lm') } },
];

/** An endpoint experiment (endpointFixtures) with CRAG's BM25 fallback index and the compressor's fixture LM prepared too. */
export function queryMethodsEndpointConfig(dir: string, baseURL: string, generator: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const file = endpointExperimentConfig(dir, baseURL, generator, {
    strategies: queryMethodStrategies(dir),
    retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [4] },
    ...extra,
  });
  const config = parse(readFileSync(file, 'utf8'));
  config.prepare.causalLmModel = { out: join(dir, 'causal-lm'), seed: 42, dim: 32 };
  config.prepare.indexes.push({ out: join(dir, 'bm25'), corpus: join(dir, 'corpus'), retriever: 'bm25' });
  writeFileSync(file, stringify(config));
  return file;
}
