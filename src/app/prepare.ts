import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ExperimentConfig } from '../config/experiment.js';
import { buildCorpus } from '../corpus/build.js';
import { parseCorpusBuildConfig } from '../corpus/config.js';
import { corpusPaths } from '../corpus/paths.js';
import { readCorpusManifest } from '../corpus/read.js';
import { generateFixtureModel } from '../embedding/fixture/generateFixtureModel.js';
import { buildIndex } from '../index/buildIndex.js';
import { generateRerankerFixture } from '../rerank/fixture/generateRerankerFixture.js';
import { readIndexManifest } from '../index/manifest.js';

/**
 * Builds what the experiment's `prepare` section lists and is not there yet: the generated
 * models, corpora, indexes — in that order, each skipped when a complete artefact is present.
 * An index built from an older version of its corpus (content hash differs) is rebuilt.
 */
export async function prepareArtefacts(
  config: ExperimentConfig,
  options: { log: (line: string) => void; progress: boolean; signal?: AbortSignal },
): Promise<void> {
  const prepare = config.prepare;
  if (!prepare) return;
  const { log } = options;

  if (prepare.fixtureModel) {
    const dir = resolve(prepare.fixtureModel.out);
    if (!existsSync(join(dir, 'onnx', 'model.onnx'))) {
      log(`generating the fixture embedding model in ${prepare.fixtureModel.out} (seed ${prepare.fixtureModel.seed}, ${prepare.fixtureModel.dim} dimensions)`);
      await generateFixtureModel({ outDir: dir, seed: prepare.fixtureModel.seed, dim: prepare.fixtureModel.dim, kind: 'mean' });
    }
  }

  if (prepare.rerankerModel) {
    const dir = resolve(prepare.rerankerModel.out);
    if (!existsSync(join(dir, 'onnx', 'model.onnx'))) {
      log(`generating the fixture cross-encoder in ${prepare.rerankerModel.out} (seed ${prepare.rerankerModel.seed}, ${prepare.rerankerModel.dim} dimensions)`);
      await generateRerankerFixture({ outDir: dir, seed: prepare.rerankerModel.seed, dim: prepare.rerankerModel.dim, kind: 'coverage' });
    }
  }

  if (prepare.clipModel) {
    const dir = resolve(prepare.clipModel.out);
    if (!existsSync(join(dir, 'onnx', 'vision_model.onnx'))) {
      log(`generating the fixture CLIP-style encoder in ${prepare.clipModel.out} (seed ${prepare.clipModel.seed}, ${prepare.clipModel.dim} dimensions)`);
      const { generateClipFixture } = await import('../models/fixture/clipFixture.js');
      await generateClipFixture({ outDir: dir, seed: prepare.clipModel.seed, dim: prepare.clipModel.dim, ...(prepare.clipModel.imageSize ? { imageSize: prepare.clipModel.imageSize } : {}) });
    }
  }

  if (prepare.causalLmModel) {
    const dir = resolve(prepare.causalLmModel.out);
    if (!existsSync(join(dir, 'onnx', 'model.onnx'))) {
      log(`generating the fixture causal LM in ${prepare.causalLmModel.out} (seed ${prepare.causalLmModel.seed}, ${prepare.causalLmModel.dim} dimensions)`);
      const { generateCausalLmFixture } = await import('../models/fixture/causalLmFixture.js');
      await generateCausalLmFixture({ outDir: dir, seed: prepare.causalLmModel.seed, dim: prepare.causalLmModel.dim });
    }
  }

  for (const [i, raw] of (prepare.corpora ?? []).entries()) {
    options.signal?.throwIfAborted();
    const corpus = parseCorpusBuildConfig(raw, `prepare.corpora[${i}]`);
    const out = resolve(corpus.out ?? join('corpora', corpus.name));
    if (existsSync(corpusPaths(out).manifest)) {
      const manifest = await readCorpusManifest(out);
      if (manifest.complete) continue;
    }
    log(`building corpus ${corpus.name} → ${out}`);
    const manifest = await buildCorpus(raw as Parameters<typeof buildCorpus>[0], {
      resume: existsSync(corpusPaths(out).partial),
      progress: options.progress,
      signal: options.signal,
    });
    log(`corpus ${corpus.name}: ${manifest.counts.documentsRead} documents, ${manifest.counts.chunksWritten} chunks`);
  }

  for (const index of prepare.indexes ?? []) {
    options.signal?.throwIfAborted();
    const out = resolve(index.out);
    const corpusDir = resolve(index.corpus);
    const corpusManifest = await readCorpusManifest(corpusDir);
    const existing = await readIndexManifest(out).catch(() => undefined);
    if (existing?.complete) {
      if (existing.corpus.contentHash === corpusManifest.contentHash) continue;
      log(`index ${index.out} was built from an older version of ${index.corpus}; rebuilding`);
      await rm(out, { recursive: true, force: true });
    }
    log(`building ${index.retriever} index ${index.out} from ${index.corpus}`);
    const { out: _out, corpus: _corpus, retriever, embedder, ...rest } = index;
    const manifest = await buildIndex({
      ...(rest as Record<string, unknown>),
      corpusDir,
      out,
      retriever,
      ...(embedder ? { embedder } : {}),
      resume: existing !== undefined && !existing.complete,
      progress: { silent: !options.progress },
      signal: options.signal,
    });
    log(`index ${index.out}: ${manifest.counts.chunks} chunks, ${manifest.counts.vectors} vectors`);
  }
}
