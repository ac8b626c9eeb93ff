import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { writeFileSync } from 'node:fs';
import type { ChatRequestBody } from '../helpers/openaiServer.js';
import { REPO_ROOT } from '../helpers/runCli.js';

const hash = (text: string) => createHash('sha256').update(text).digest();

/**
 * A deterministic stand-in LLM behind the local OpenAI-compatible server: its reply depends
 * only on the prompt, so an interrupted-and-resumed run must reproduce an uninterrupted one.
 * Judge prompts (they list `加分项_N: 0或1` lines) get one verdict line per item; answer
 * prompts get the first retrieved passage, or a closed-book guess.
 */
export function deterministicResponder(request: ChatRequestBody): string {
  const prompt = request.messages.map((m) => m.content).join('\n');
  const keys = [...prompt.matchAll(/^((?:加分项|减分项)_\d+): 0或1$/gm)].map((m) => m[1]!);
  if (keys.length) {
    const answer = prompt.split('【待评答案】')[1]?.split('【评分细则】')[0] ?? '';
    return keys.map((key) => `${key}: ${key.startsWith('减分项') ? 0 : hash(answer + key)[0]! % 2}`).join('\n');
  }
  const passage = /【资料1】[^\n]*\n([^\n]+)/.exec(prompt)?.[1];
  return passage ? `根据资料：${passage.slice(0, 80)}` : `<think>回忆史实</think>${prompt.length % 3 === 0 ? '科举始于隋朝。' : '不确定。'}`;
}

/** An experiment on the bundled demo data whose model and judge are the local server. */
export function endpointExperimentConfig(dir: string, baseURL: string, generator: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const config = {
    name: 'endpoint',
    seed: 7,
    output: join(dir, 'runs'),
    prepare: {
      fixtureModel: { out: join(dir, 'model'), seed: 42, dim: 32 },
      corpora: [
        {
          name: 'demo-zhwiki',
          builder: { name: 'wikipedia-dump', input: join(REPO_ROOT, 'corpora/sources/demo-zhwiki.xml'), workers: 0 },
          out: join(dir, 'corpus'),
          chunking: { maxSize: 120, unit: 'chars', overlap: 20 },
        },
      ],
      indexes: [{ out: join(dir, 'index'), corpus: join(dir, 'corpus'), retriever: 'hnsw', embedder: { name: 'transformers', model: join(dir, 'model') } }],
    },
    benchmark: { name: 'prohist', file: join(REPO_ROOT, 'experiments/data/demo-prohist.json'), limit: 8 },
    retrieval: { retriever: { name: 'hnsw', index: join(dir, 'index') }, k: [5, 10] },
    strategies: ['closed-book', 'rag'],
    models: [{ name: 'openai', baseURL, model: 'stand-in-llm', label: 'stand-in', ...generator }],
    judge: { name: 'llm', generator: { name: 'openai', baseURL, model: 'stand-in-judge', ...generator } },
    scoring: { bootstrapResamples: 200 },
    execution: { concurrency: 4 },
    ...extra,
  };
  const file = join(dir, 'endpoint.yaml');
  writeFileSync(file, stringify(config));
  return file;
}
