import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeInputChanges, fingerprintFiles, type BuildInputs } from '../runFiles/buildInputs.js';
import { readIndexManifest } from '../runFiles/indexManifest.js';

/** An index to build from a corpus folder (an experiment's `prepare.indexes[]` entry): out, corpus, retriever and build options. */
export type IndexBuildEntry = { out: string; corpus: string } & Record<string, unknown>;

/**
 * What an index is built from besides its corpus (recorded by content hash on its own): every build
 * setting of the entry (retriever, embedder spec, graph and bm25 params…) and the files of the
 * embedder's local model folder (`embedder.model`), so a regenerated or replaced model rebuilds it.
 */
export async function indexBuildInputs(entry: IndexBuildEntry, previous?: BuildInputs['files']): Promise<BuildInputs> {
  const { out: _out, corpus: _corpus, ...settings } = entry;
  const model = (entry.embedder as { model?: unknown } | undefined)?.model;
  const modelDir = typeof model === 'string' ? resolve(model) : undefined;
  const local = modelDir && existsSync(modelDir) && statSync(modelDir).isDirectory();
  return { files: await fingerprintFiles(local ? [modelDir] : [], previous), settings };
}

export interface IndexFreshness {
  out: string;
  status: 'current' | 'missing' | 'interrupted' | 'stale';
  reasons: string[];
}

/**
 * Compares an index entry with the index in its `out` folder, given the content hash of the corpus it
 * would be built from now (nothing is built). An index of another corpus version is stale.
 */
export async function checkIndexFreshness(entry: IndexBuildEntry, corpusContentHash: string | undefined): Promise<IndexFreshness> {
  const out = resolve(entry.out);
  const existing = readIndexManifest(out);
  if (!existing) return { out, status: 'missing', reasons: ['not built yet'] };
  if (!existing.complete) return { out, status: 'interrupted', reasons: ['an interrupted build is there; resuming it'] };
  const reasons: string[] = [];
  if (corpusContentHash !== undefined && existing.corpus.contentHash !== corpusContentHash) reasons.push(`built from an older version of ${entry.corpus}`);
  reasons.push(...describeInputChanges(existing.inputs, await indexBuildInputs(entry, existing.inputs?.files)));
  return { out, status: reasons.length ? 'stale' : 'current', reasons };
}
