import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BatchEmbeddings } from './batchEmbeddings.js';
import {
  AutoConfig,
  AutoProcessor,
  AutoTokenizer,
  CLIPTextModelWithProjection,
  CLIPVisionModelWithProjection,
  JinaCLIPTextModel,
  JinaCLIPVisionModel,
  RawImage,
  SiglipTextModel,
  SiglipVisionModel,
  type Tensor,
} from '@huggingface/transformers';
import pLimit from 'p-limit';
import { z } from 'zod';
import { ConfigError, DataFileError, parseWith } from '../errors.js';
import type { PageImageRef } from '../runFiles/pageImage.js';
import { createProgress } from '../progress/progress.js';
import { locateModel, loadingModel, onnxPartFileOf, prepareModel, pretrainedOptions, type ModelLayout, type ModelRole } from '../models/modelLoading.js';
import { modelFingerprint } from '../models/modelFingerprint.js';
import { CachedEmbedder } from './cachedEmbedder.js';
import { describePageImage } from '../corpus/pageImageFile.js';
import { readPageImage } from './pageImageBytes.js';
import type { ImageEmbedder } from './types.js';
import type { EmbedderIdentity } from '../runFiles/indexManifest.js';
import { ClipEmbedderParamsSchema, type ClipEmbedderParams, type ClipEmbedderConfig } from './clipEmbedderParams.js';

export { ClipEmbedderParamsSchema, type ClipEmbedderParams, type ClipEmbedderConfig } from './clipEmbedderParams.js';


const CLIP_ROLE: ModelRole = { configPath: 'embedder.model', directory: 'dual-encoder directory', fixtureCommand: 'hisrag model fixture --kind clip' };

interface Tower {
  from_pretrained(reference: string, options: object): Promise<(inputs: object) => Promise<Record<string, Tensor>>>;
}

/**
 * The towers transformers.js v3 runs separately, by config.json's model_type, and the outputs holding
 * the projected vectors (the first present is used). Chinese-CLIP exports with separate text/vision
 * files load through the CLIP tower classes (v3 knows only its combined model).
 */
const FAMILIES: Record<string, { text: Tower; vision: Tower; textOutputs: string[]; imageOutputs: string[]; padToMax?: boolean }> = {
  clip: { text: CLIPTextModelWithProjection as never, vision: CLIPVisionModelWithProjection as never, textOutputs: ['text_embeds'], imageOutputs: ['image_embeds'] },
  chinese_clip: {
    text: CLIPTextModelWithProjection as never,
    vision: CLIPVisionModelWithProjection as never,
    textOutputs: ['text_embeds', 'pooler_output'],
    imageOutputs: ['image_embeds', 'pooler_output'],
  },
  // SigLIP was trained on max_length padding: its text vectors depend on it.
  siglip: { text: SiglipTextModel as never, vision: SiglipVisionModel as never, textOutputs: ['pooler_output'], imageOutputs: ['pooler_output'], padToMax: true },
  jina_clip: {
    text: JinaCLIPTextModel as never,
    vision: JinaCLIPVisionModel as never,
    textOutputs: ['text_embeddings', 'l2norm_text_embeddings'],
    imageOutputs: ['image_embeddings', 'l2norm_image_embeddings'],
  },
};

const ModelConfigSchema = z.object({ model_type: z.string() }).passthrough();

interface LoadedClip {
  modelType: string;
  dimension: number;
  fingerprint: string;
  embedTexts(texts: string[]): Promise<Float32Array[]>;
  embedPixels(images: RawImage[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

function rowsOf(output: Record<string, Tensor>, names: string[], count: number, what: string, model: string): Float32Array[] {
  const name = names.find((n) => output[n] !== undefined);
  if (!name) throw new DataFileError(`${model}: the ${what} model gave none of the outputs ${names.join(', ')} (it gave ${Object.keys(output).join(', ')})`);
  const tensor = output[name]!;
  const [rows, width] = tensor.dims as [number, number];
  if (tensor.dims.length !== 2 || rows !== count) throw new DataFileError(`${model}: ${what} output ${name} is [${tensor.dims.join(', ')}] for ${count} inputs`);
  const data = tensor.data as Float32Array;
  return Array.from({ length: rows }, (_, i) => data.slice(i * width, (i + 1) * width));
}

async function loadClip(params: ClipEmbedderParams): Promise<LoadedClip> {
  const layout: ModelLayout = { onnxFiles: [onnxPartFileOf('text_model', params.dtype), onnxPartFileOf('vision_model', params.dtype)], extraFiles: ['preprocessor_config.json'] };
  const { location, fingerprint } = prepareModel(params, CLIP_ROLE, params.maxTokens ? `maxTokens=${params.maxTokens}` : undefined, layout);
  const options = pretrainedOptions(params);
  const { local_files_only, cache_dir } = options;
  const modelType = await loadingModel(params, CLIP_ROLE, location, async () => {
    const parsed = ModelConfigSchema.safeParse(await AutoConfig.from_pretrained(location.reference, { local_files_only, cache_dir }));
    if (!parsed.success) throw new Error('config.json has no model_type');
    return parsed.data.model_type;
  });
  const family = FAMILIES[modelType];
  if (!family) throw new ConfigError(`embedder.model: "${params.model}" is a ${modelType} model; the clip embedder runs ${Object.keys(FAMILIES).join(', ')}`);
  const [tokenizer, textModel, visionModel, processor] = await loadingModel(params, CLIP_ROLE, location, () =>
    Promise.all([
      AutoTokenizer.from_pretrained(location.reference, { local_files_only, cache_dir }),
      family.text.from_pretrained(location.reference, options),
      family.vision.from_pretrained(location.reference, options),
      AutoProcessor.from_pretrained(location.reference, { local_files_only, cache_dir }),
    ]),
  );
  const tok = tokenizer as unknown as { model_max_length: number; (texts: string[], options: object): object };
  if (params.maxTokens) tok.model_max_length = Math.min(tok.model_max_length ?? params.maxTokens, params.maxTokens);
  const imageProcessor = (processor as unknown as { image_processor?: (images: RawImage[]) => Promise<{ pixel_values: Tensor }> }).image_processor;
  if (!imageProcessor) throw new ConfigError(`embedder.model: "${params.model}" has no image processor (preprocessor_config.json)`);
  const models = [textModel, visionModel] as unknown as { dispose(): Promise<void> }[];

  // One model call at a time: concurrent callers queue instead of piling up tensors.
  const oneAtATime = pLimit(1);
  const embedTexts = (texts: string[]) =>
    oneAtATime(async () => {
      const inputs = tok(texts, { padding: family.padToMax ? 'max_length' : true, truncation: true });
      return rowsOf(await textModel(inputs), family.textOutputs, texts.length, 'text', params.model);
    });
  const [probe] = await embedTexts(['维度']);
  return {
    modelType,
    dimension: probe!.length,
    fingerprint,
    embedTexts,
    embedPixels: (images) =>
      oneAtATime(async () => {
        const { pixel_values } = await imageProcessor(images);
        return rowsOf(await visionModel({ pixel_values }), family.imageOutputs, images.length, 'vision', params.model);
      }),
    async dispose() {
      for (const model of models) await model.dispose();
    },
  };
}

function normalized(vector: Float32Array, normalize: boolean): number[] {
  const out = Array.from(vector);
  if (!normalize) return out;
  const norm = Math.sqrt(out.reduce((sum, x) => sum + x * x, 0));
  return norm > 0 ? out.map((x) => x / norm) : out;
}

/**
 * A CLIP-family dual encoder (CLIP, SigLIP, jina-clip exports, or `hisrag model fixture --kind clip`)
 * run by transformers.js: texts through the text tower, page scans (`embedImages`) through the vision
 * tower, into one vector space.
 */
export class ClipEmbedder extends BatchEmbeddings implements ImageEmbedder {
  readonly params: ClipEmbedderParams;
  private model?: Promise<LoadedClip>;

  constructor(config: ClipEmbedderConfig) {
    super({});
    this.params = parseWith(ClipEmbedderParamsSchema, config, (problems) => new ConfigError(problems), 'embedder');
  }

  load(): Promise<LoadedClip> {
    this.model ??= loadClip(this.params);
    this.model.catch(() => (this.model = undefined));
    return this.model;
  }

  async identity(): Promise<EmbedderIdentity> {
    const model = await this.load();
    const { normalize, queryPrefix, documentPrefix } = this.params;
    return { model: locateModel(this.params.model).displayName, dimension: model.dimension, pooling: 'model', normalize, queryPrefix, documentPrefix };
  }

  /** sha256 of config, tokenizer, preprocessor config and both towers' ONNX files. */
  async fingerprint(): Promise<string> {
    await this.load();
    const { model, cacheDir, dtype } = this.params;
    const dir = locateModel(model).localDir ?? join(resolve(cacheDir), model);
    const onnx = ['text_model', 'vision_model'].map((part) => join(dir, onnxPartFileOf(part, dtype)));
    // A hub model transformers.js found somewhere other than the cache dir: its name and dtype are all we know.
    if (!onnx.every((file) => existsSync(file))) return `${model}|${dtype}`;
    return modelFingerprint(dir, onnx, ['preprocessor_config.json']);
  }

  async variantKey(): Promise<string> {
    return (await this.load()).fingerprint;
  }

  private async inBatches<T>(items: T[], unit: string, embed: (batch: T[]) => Promise<Float32Array[]>): Promise<number[][]> {
    const progress = createProgress({ label: 'embedding', total: items.length, unit, silent: !this.params.progress });
    try {
      const out: number[][] = [];
      for (let start = 0; start < items.length; start += this.params.batchSize) {
        const batch = items.slice(start, start + this.params.batchSize);
        for (const vector of await embed(batch)) out.push(normalized(vector, this.params.normalize));
        progress.tick(batch.length);
      }
      return out;
    } finally {
      progress.stop();
    }
  }

  private async embedTexts(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const model = await this.load();
    return this.inBatches(texts, 'texts', (batch) => model.embedTexts(batch));
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    return this.embedTexts(documents.map((text) => this.params.documentPrefix + text));
  }

  async embedQueries(queries: string[]): Promise<number[][]> {
    return this.embedTexts(queries.map((query) => this.params.queryPrefix + query));
  }

  /** Page images by reference: each file is read as it lies (a missing one is an error naming document and page). */
  async embedImages(images: PageImageRef[]): Promise<number[][]> {
    if (images.length === 0) return [];
    const data = await Promise.all(images.map((image) => readPageImage(image)));
    return this.embedImageData(data, (i) => describePageImage(images[i]!));
  }

  /** Encoded images (JPEG, PNG, WebP…), e.g. from a server request; `name(i)` says which one an error is about. */
  async embedImageData(data: Uint8Array[], name: (i: number) => string = (i) => `image ${i + 1}`): Promise<number[][]> {
    if (data.length === 0) return [];
    const model = await this.load();
    const indexes = data.map((_, i) => i);
    return this.inBatches(indexes, 'images', async (batch) => {
      const decoded = await Promise.all(
        batch.map((i) =>
          RawImage.fromBlob(new Blob([data[i]!])).catch((error: unknown) => {
            throw new DataFileError(`${name(i)}: not a readable image (${(error as Error).message})`);
          }),
        ),
      );
      return model.embedPixels(decoded);
    });
  }

  async dispose(): Promise<void> {
    const model = this.model;
    this.model = undefined;
    if (model) await (await model).dispose();
  }
}

/** Builds the embedder, wrapped in the on-disk cache when `cacheFile` is set. */
export function createClipEmbedder(config: ClipEmbedderConfig): ImageEmbedder {
  const embedder = new ClipEmbedder(config);
  return embedder.params.cacheFile ? (new CachedEmbedder(embedder, embedder.params.cacheFile) as unknown as ImageEmbedder) : embedder;
}
