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
