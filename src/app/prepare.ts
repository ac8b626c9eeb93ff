import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { ExperimentConfig } from '../config/experiment.js';
import type { buildCorpus } from '../corpus/build.js';
import { checkCorpusFreshness, type CorpusFreshness } from '../corpus/freshness.js';
import { readCorpusManifest } from '../runFiles/corpusFiles.js';
import { InputError } from '../errors.js';
import type { buildIndex } from '../index/buildIndex.js';
import { checkIndexFreshness, indexBuildInputs, type IndexBuildEntry } from '../index/freshness.js';
import { describeIndexEmbedder } from '../runFiles/indexManifest.js';
import { describeInputChanges, type BuildInputs } from '../runFiles/buildInputs.js';
import { readModelInputs, writeModelInputs } from '../runFiles/modelFiles.js';

export interface PrepareOptions {
  log: (line: string) => void;
  progress: boolean;
  signal?: AbortSignal;
  /** Build nothing: refuse (exit 2) when any artefact is missing, interrupted or out of date, naming it and why. */
  frozen?: boolean;
  /** Say what would be built or rebuilt, and why, without building anything. */
  dryRun?: boolean;
}

/** One artefact of the `prepare` section checked against what it would be built from now. */
interface Check {
  label: string;
  status: 'current' | 'missing' | 'interrupted' | 'stale';
  reasons: string[];
}

const label = (path: string) => (path.startsWith(process.cwd() + sep) ? relative(process.cwd(), path) : path);

/** The generated models of the prepare section: where, from which settings, and how to generate each. */
function fixtureModels(prepare: NonNullable<ExperimentConfig['prepare']>) {
  const models: { what: string; out: string; file: string; settings: Record<string, unknown>; generate: (outDir: string) => Promise<unknown> }[] = [];
  const { fixtureModel: embed, rerankerModel: rerank, clipModel: clip, causalLmModel: lm } = prepare;
  if (embed) models.push({ what: 'fixture embedding model', out: embed.out, file: 'model.onnx', settings: { kind: 'embedding', seed: embed.seed, dim: embed.dim }, generate: async (outDir) => (await import('../embedding/fixture/generateFixtureModel.js')).generateFixtureModel({ outDir, seed: embed.seed, dim: embed.dim, kind: 'mean' }) });
  if (rerank) models.push({ what: 'fixture cross-encoder', out: rerank.out, file: 'model.onnx', settings: { kind: 'reranker', seed: rerank.seed, dim: rerank.dim }, generate: async (outDir) => (await import('../rerank/fixture/generateRerankerFixture.js')).generateRerankerFixture({ outDir, seed: rerank.seed, dim: rerank.dim, kind: 'coverage' }) });
  if (clip) {
    models.push({
      what: 'fixture CLIP-style encoder', out: clip.out, file: 'vision_model.onnx', settings: { kind: 'clip', seed: clip.seed, dim: clip.dim, imageSize: clip.imageSize },
      generate: async (outDir) => (await import('../models/fixture/clipFixture.js')).generateClipFixture({ outDir, seed: clip.seed, dim: clip.dim, ...(clip.imageSize ? { imageSize: clip.imageSize } : {}) }),
    });
  }
  if (lm) models.push({ what: 'fixture causal LM', out: lm.out, file: 'model.onnx', settings: { kind: 'causal-lm', seed: lm.seed, dim: lm.dim }, generate: async (outDir) => (await import('../models/fixture/causalLmFixture.js')).generateCausalLmFixture({ outDir, seed: lm.seed, dim: lm.dim }) });
  return models.map((model) => ({ ...model, dir: resolve(model.out), inputs: { files: {}, settings: model.settings } as BuildInputs }));
}

async function checkModel(model: ReturnType<typeof fixtureModels>[number]): Promise<Check> {
  if (!existsSync(join(model.dir, 'onnx', model.file))) return { label: label(model.dir), status: 'missing', reasons: ['not built yet'] };
  const recorded = readModelInputs(model.dir);
  const reasons = describeInputChanges(recorded, model.inputs);
  return { label: label(model.dir), status: reasons.length ? 'stale' : 'current', reasons };
}

/** The indexes checked against their corpora as they are on disk now; `pending` corpora are rebuilt first. */
async function checkIndexes(entries: IndexBuildEntry[], pending: CorpusFreshness[], pendingModels: string[] = []): Promise<(Check & { out: string; entry: IndexBuildEntry })[]> {
  const checks = [];
  for (const entry of entries) {
    const corpusDir = resolve(entry.corpus);
    const corpusHash = existsSync(join(corpusDir, 'manifest.json')) ? (await readCorpusManifest(corpusDir)).contentHash : undefined;
    const check = await checkIndexFreshness(entry, corpusHash);
    const before = pending.find((corpus) => corpus.out === corpusDir);
    if (before && check.status === 'current') check.reasons.push(`its corpus ${label(corpusDir)} is built first; rebuilt if its chunks change`);
    const model = (entry.embedder as { model?: unknown } | undefined)?.model;
    if (typeof model === 'string' && pendingModels.includes(resolve(model)) && check.status === 'current') check.reasons.push(`its embedder model ${label(resolve(model))} is generated first; rebuilt if its files change`);
    checks.push({ ...check, label: label(check.out), entry });
  }
  return checks;
}

const why = (check: Check) => `${check.label}: ${check.reasons.join('; ')}`;

/**
 * Builds what the experiment's `prepare` section lists — generated models, corpora, indexes, in that
 * order — when it is missing or out of date: each artefact records what it was built from (input
 * files by content hash, settings) and is rebuilt, saying why, when that changed. An index is
 * rebuilt when its corpus's chunks changed. `dryRun` only says what would be built; `frozen` builds
 * nothing and refuses, before anything is built, every artefact that is not current.
 */
export async function prepareArtefacts(config: ExperimentConfig, options: PrepareOptions): Promise<void> {
  const prepare = config.prepare;
  if (!prepare) return;
  const { log } = options;
  const models = fixtureModels(prepare);
  const modelChecks = await Promise.all(models.map(checkModel));
  const corpusConfigs = (prepare.corpora ?? []).map((raw, i) => ({ raw, path: `prepare.corpora[${i}]` }));
  const corpusChecks: CorpusFreshness[] = [];
  for (const { raw, path } of corpusConfigs) corpusChecks.push(await checkCorpusFreshness(raw, path));
  const indexEntries = (prepare.indexes ?? []) as IndexBuildEntry[];

  if (options.dryRun || options.frozen) {
    const pending = corpusChecks.filter((check) => check.status !== 'current');
    const checks: Check[] = [...modelChecks, ...corpusChecks.map((check) => ({ ...check, label: label(check.out) })), ...(await checkIndexes(indexEntries, pending, models.filter((_, i) => modelChecks[i]!.status !== 'current').map((model) => model.dir)))];
    if (options.dryRun) {
      const todo = checks.filter((check) => check.reasons.length > 0);
      for (const check of todo) log(`${check.status === 'stale' ? 'would rebuild' : check.status === 'current' ? 'might rebuild' : 'would build'} ${why(check)}`);
      if (todo.length === 0) log('every prepared artefact is up to date; nothing would be built');
      return;
    }
    // An index whose corpus is pending is "current" only until that corpus is rebuilt: it would be checked again after, so it is named too.
    const notCurrent = checks.filter((check) => check.status !== 'current' || check.reasons.length > 0);
    if (notCurrent.length > 0) {
      throw new InputError(`--frozen: ${notCurrent.length} prepared artefact${notCurrent.length > 1 ? 's are' : ' is'} missing or out of date and would be built; nothing was built:\n${notCurrent.map((check) => `  ${check.status}: ${why(check)}`).join('\n')}`);
    }
  }

  for (const [i, model] of models.entries()) {
    const check = modelChecks[i]!;
    if (check.status === 'current') continue;
    log(`${check.status === 'stale' ? `${why(check)}; regenerating` : `generating`} the ${model.what} in ${model.out} (seed ${model.settings.seed}, ${model.settings.dim} dimensions)`);
    await model.generate(model.dir);
    await writeModelInputs(model.dir, model.inputs);
  }

  for (const [i, { raw }] of corpusConfigs.entries()) {
    options.signal?.throwIfAborted();
    const check = corpusChecks[i]!;
    if (check.status === 'current') continue;
    log(check.status === 'stale' ? `${why({ ...check, label: label(check.out) })}; rebuilding` : `building corpus ${check.name} → ${check.out}`);
    // Loaded when something is built: a fresh artefact (a dry run's usual case) needs none of the builders.
    const { buildCorpus } = await import('../corpus/build.js');
    const manifest = await buildCorpus(raw as Parameters<typeof buildCorpus>[0], { resume: check.status === 'interrupted', progress: options.progress, signal: options.signal });
    log(`corpus ${check.name}: ${manifest.counts.documentsRead} documents, ${manifest.counts.chunksWritten} chunks`);
  }

  // Checked only now: a corpus rebuilt above has its new content hash.
  for (const check of await checkIndexes(indexEntries, [])) {
    options.signal?.throwIfAborted();
    if (check.status === 'current') continue;
    if (check.status === 'stale') {
      log(`${why(check)}; rebuilding`);
      await rm(check.out, { recursive: true, force: true });
    }
    const { out: _out, corpus, retriever, embedder, ...rest } = check.entry;
    log(`building ${String(retriever)} index ${check.entry.out} from ${corpus}`);
    const { buildIndex } = await import('../index/buildIndex.js');
    const manifest = await buildIndex({
      ...(rest as Record<string, unknown>),
      corpusDir: resolve(corpus),
      out: check.out,
      retriever: retriever as Parameters<typeof buildIndex>[0]['retriever'],
      ...(embedder ? { embedder: embedder as Parameters<typeof buildIndex>[0]['embedder'] } : {}),
      inputs: await indexBuildInputs(check.entry),
      resume: check.status === 'interrupted',
      progress: { silent: !options.progress },
      signal: options.signal,
    });
    log(`index ${check.entry.out}: ${manifest.counts.chunks} chunks, ${manifest.counts.vectors} vectors`);
    const conventions = describeIndexEmbedder(manifest);
    if (conventions) log(`index ${check.entry.out} embedder: ${conventions}`);
  }
}
