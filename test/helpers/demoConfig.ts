import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from './runCli.js';

/**
 * The bundled `experiments/demo.yaml` (or another demo config built the same way, `source`) with
 * every artefact and run written inside `dir`, with `edit` applied to the parsed config; returns
 * the path of the config file it writes there.
 */
export function demoConfigIn(dir: string, edit: (config: any) => void = () => {}, name = 'demo.yaml', source = 'demo.yaml'): string {
  const config = parse(readFileSync(join(REPO_ROOT, 'experiments', source), 'utf8'));
  config.output = join(dir, 'runs');
  config.prepare.fixtureModel.out = join(dir, 'model');
  config.prepare.corpora[0].out = join(dir, 'corpus');
  config.prepare.indexes[0].out = join(dir, 'index');
  config.prepare.indexes[0].corpus = join(dir, 'corpus');
  config.prepare.indexes[0].embedder.model = join(dir, 'model');
  config.retrieval.retriever.index = join(dir, 'index');
  edit(config);
  const file = join(dir, name);
  writeFileSync(file, stringify(config));
  return file;
}

/**
 * A demo config with several indexes (the LongHisDoc demos) with every artefact and run written
 * inside `dir`: the fixture model, the first corpus, each index (under its own folder name) and each
 * retriever's index path rewritten. Returns the parsed config, for the caller to adjust and write,
 * and where each index went.
 */
export function multiIndexDemoConfigIn(dir: string, source: string): { config: any; indexes: Record<string, string> } {
  const config = parse(readFileSync(join(REPO_ROOT, 'experiments', source), 'utf8'));
  config.output = join(dir, 'runs');
  config.prepare.fixtureModel.out = join(dir, 'model');
  config.prepare.corpora[0].out = join(dir, 'corpus');
  const indexes: Record<string, string> = {};
  for (const index of config.prepare.indexes) {
    const out = join(dir, index.out.split('/').pop());
    indexes[index.out] = out;
    index.out = out;
    index.corpus = join(dir, 'corpus');
    if (index.embedder) index.embedder.model = join(dir, 'model');
  }
  for (const r of config.retrieval.retrievers ?? [config.retrieval.retriever]) r.index = indexes[r.index] ?? r.index;
  return { config, indexes };
}
