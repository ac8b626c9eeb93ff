import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from '../helpers/runCli.js';

/**
 * experiments/demo-query-methods.yaml with every artefact and run inside `dir`: both fixture models,
 * the corpus, both indexes, and the paths strategies name (CRAG's fallback index, the compressor's
 * scorer) rewritten; `edit` applied to the parsed config. Returns the config file's path.
 */
export function queryMethodsConfigIn(dir: string, edit: (config: any) => void = () => {}, name = 'query-methods.yaml'): string {
  const config = parse(readFileSync(join(REPO_ROOT, 'experiments', 'demo-query-methods.yaml'), 'utf8'));
  const moved: Record<string, string> = {};
  const move = (path: string) => (moved[path] ??= join(dir, path.split('/').pop()!));
  config.output = join(dir, 'runs');
  config.prepare.fixtureModel.out = move(config.prepare.fixtureModel.out);
  config.prepare.causalLmModel.out = move(config.prepare.causalLmModel.out);
  config.prepare.rerankerModel.out = move(config.prepare.rerankerModel.out);
  config.prepare.corpora[0].out = move(config.prepare.corpora[0].out);
  config.prepare.corpora[0].builder.input = join(REPO_ROOT, config.prepare.corpora[0].builder.input);
  for (const index of config.prepare.indexes) {
    index.out = move(index.out);
    index.corpus = move(index.corpus);
    if (index.embedder) index.embedder.model = move(index.embedder.model);
  }
  config.retrieval.retriever.index = move(config.retrieval.retriever.index);
  config.benchmark.file = join(REPO_ROOT, config.benchmark.file);
  for (const strategy of config.strategies) {
    if (strategy.fallback?.index) strategy.fallback.index = move(strategy.fallback.index);
    if (strategy.scorer?.model) strategy.scorer.model = move(strategy.scorer.model);
    if (strategy.evaluator?.model) strategy.evaluator.model = move(strategy.evaluator.model);
  }
  edit(config);
  const file = join(dir, name);
  writeFileSync(file, stringify(config));
  return file;
}
