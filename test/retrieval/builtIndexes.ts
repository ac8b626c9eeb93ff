import { join } from 'node:path';
import { createEmbedder } from '../../src/embedding/registry.js';
import type { TextEmbedder } from '../../src/embedding/types.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { fixtureModel, writeTestCorpus } from '../index/testCorpus.js';

export interface BuiltIndexes {
  corpusDir: string;
  model: string;
  embedder: TextEmbedder;
  hnsw: string;
  bm25: string;
}

/** The sample corpus indexed as hnsw (fixture model) and bm25, under `root`. */
export async function buildTestIndexes(root: string): Promise<BuiltIndexes> {
  const corpusDir = await writeTestCorpus(join(root, 'corpus'));
  const model = await fixtureModel(join(root, 'model'));
  const spec = { name: 'transformers', model };
  const embedder = await createEmbedder(spec);
  const progress = { silent: true };
  const hnsw = join(root, 'hnsw');
  const bm25 = join(root, 'bm25');
  await buildIndex({ corpusDir, out: hnsw, retriever: 'hnsw', embedder: spec, embedderInstance: embedder, progress });
  await buildIndex({ corpusDir, out: bm25, retriever: 'bm25', progress });
  return { corpusDir, model, embedder, hnsw, bm25 };
}
