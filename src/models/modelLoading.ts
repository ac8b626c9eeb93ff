import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ConfigError } from '../errors.js';

/**
 * Finding and loading a transformers.js model, alike for every stage that runs one: local directory or
 * hub id, ONNX file per dtype, threads, fingerprint, and errors that say where the loader looked.
 */

/** What every transformers.js model in hisrag is loaded with. */
export interface ModelLoadParams {
  /** Hugging Face hub id (looked up in `cacheDir`) or a local model directory. */
  model: string;
  cacheDir: string;
  allowRemote: boolean;
  /** `q8` loads `onnx/model_quantized.onnx`. */
  dtype: 'fp32' | 'q8';
  /** onnxruntime intra-op threads (default: onnxruntime's choice). */
  threads?: number;
}

/** Who loads the model, for error messages: its config path and how to generate a local one. */
export interface ModelRole {
  /** `embedder.model`, `rerank.model`. */
  configPath: string;
  /** What a model directory is called in messages (`model directory`, `cross-encoder directory`). */
  directory: string;
  /** The command that generates one offline. */
  fixtureCommand: string;
}

/** Where a model comes from: a local directory, or a hub id resolved through the cache dir. */
export interface ModelLocation {
  /** What transformers.js is given: an absolute directory, or the hub id. */
  reference: string;
  /** Stable name for identities: a local directory relative to the working dir when inside it. */
  displayName: string;
  localDir?: string;
}

const looksLikePath = (model: string) => /^(\.{1,2}\/|\/|~)/.test(model) || model.split('/').length > 2;

export function locateModel(model: string): ModelLocation {
  const absolute = resolve(model);
  if (looksLikePath(model) || (existsSync(absolute) && statSync(absolute).isDirectory())) {
    const inside = relative(process.cwd(), absolute);
    const displayName = !inside.startsWith('..') && !isAbsolute(inside) ? inside : absolute;
    return { reference: absolute, displayName, localDir: absolute };
  }
  return { reference: model, displayName: model };
}

/** The ONNX file a dtype loads, relative to the model directory. */
export const onnxFileOf = (dtype: ModelLoadParams['dtype']) => join('onnx', dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');

/** The ONNX file of a named part (`text_model`, `vision_model`: a dual encoder's towers) a dtype loads. */
export const onnxPartFileOf = (part: string, dtype: ModelLoadParams['dtype']) => join('onnx', `${part}${dtype === 'q8' ? '_quantized' : ''}.onnx`);

/**
 * What a model directory must hold beyond the tokenizer: the ONNX files a dtype loads (default
 * `onnx/model.onnx`) and other files its loader reads (a dual encoder's `preprocessor_config.json`).
 */
export interface ModelLayout {
  onnxFiles: string[];
  extraFiles?: string[];
}

function checkLocalModel(dir: string, dtype: ModelLoadParams['dtype'], role: ModelRole, layout?: ModelLayout): string[] {
  const onnxFiles = (layout?.onnxFiles ?? [onnxFileOf(dtype)]).map((file) => join(dir, file));
  const required = ['config.json', 'tokenizer.json', 'tokenizer_config.json', ...(layout?.extraFiles ?? [])];
  for (const path of [...required.map((file) => join(dir, file)), ...onnxFiles]) {
    if (!existsSync(path)) {
      const holds = layout ? [...required, ...layout.onnxFiles].join(', ') : `config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx${dtype === 'q8' ? ' and onnx/model_quantized.onnx for dtype q8' : ''}`;
      throw new ConfigError(`${role.configPath}: ${path} is missing (a ${role.directory} holds ${holds}; \`${role.fixtureCommand}\` generates one)`);
    }
  }
  return onnxFiles;
}

/**
 * Checks a local model directory (before anything loads) and computes the model's quick
 * fingerprint: name, dtype, `variant` (what else changes the outputs, e.g. `maxTokens=512`), and
 * the ONNX file's size and mtime — part of cache keys.
 */
export function prepareModel(params: ModelLoadParams, role: ModelRole, variant?: string, layout?: ModelLayout): { location: ModelLocation; fingerprint: string } {
  const location = locateModel(params.model);
  let fingerprint = [location.displayName, params.dtype, ...(variant ? [variant] : [])].join('|');
  if (location.localDir) {
    for (const file of checkLocalModel(location.localDir, params.dtype, role, layout)) {
      const stat = statSync(file);
      fingerprint += `|${stat.size}|${stat.mtimeMs}`;
    }
  }
  return { location, fingerprint };
}

/** Runs a transformers.js load, turning its failure into a ConfigError that says where it looked. */
export async function loadingModel<T>(params: ModelLoadParams, role: ModelRole, location: ModelLocation, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const hint = location.localDir
      ? ''
      : ` (looked in ${join(resolve(params.cacheDir), params.model)}; set allowRemote: true to download it, or point model at a local directory)`;
    throw new ConfigError(`${role.configPath}: cannot load "${params.model}"${hint}: ${(error as Error).message}`);
  }
}

/** transformers.js `from_pretrained` / `pipeline` options: cache dir, local-only unless allowed, dtype and threads. */
export function pretrainedOptions(params: ModelLoadParams) {
  return {
    local_files_only: !params.allowRemote,
    cache_dir: resolve(params.cacheDir),
    dtype: params.dtype,
    session_options: {
      ...(params.threads && { intraOpNumThreads: params.threads, interOpNumThreads: 1 }),
      // Threads sleep between forward passes instead of spinning, as in index/scoreMatrix.ts: passes
      // come one at a time between tokenizing and I/O, and on a shared machine a spinning pool burns
      // the cores other work needs (the query-methods demo: 40 → 31 CPU-s at the same thread count).
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    },
  };
}

/** The directory holding a model's files and the ONNX file a dtype uses: a local directory, or a hub id's copy in the cache dir. */
export function modelFiles(params: Pick<ModelLoadParams, 'model' | 'cacheDir' | 'dtype'>): { dir: string; onnxFile: string } | undefined {
  const location = locateModel(params.model);
  const dir = location.localDir ?? join(resolve(params.cacheDir), params.model);
  const onnxFile = join(dir, onnxFileOf(params.dtype));
  return existsSync(onnxFile) ? { dir, onnxFile } : undefined;
}

/** A model's tokenizer alone (no weights loaded), checked like the model. */
export async function loadTokenizer<T>(params: ModelLoadParams, role: ModelRole, variant?: string): Promise<{ tokenizer: T; location: ModelLocation; fingerprint: string }> {
  const { location, fingerprint } = prepareModel(params, role, variant);
  const { local_files_only, cache_dir } = pretrainedOptions(params);
  // Imported here: finding a model's files (locateModel, modelFiles) loads no runtime.
  const { AutoTokenizer } = await import('@huggingface/transformers');
  const tokenizer = (await loadingModel(params, role, location, () =>
    AutoTokenizer.from_pretrained(location.reference, { local_files_only, cache_dir }),
  )) as unknown as T;
  return { tokenizer, location, fingerprint };
}
