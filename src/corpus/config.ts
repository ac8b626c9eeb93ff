import { z } from 'zod';
import { ChunkingOptionsSchema } from '../chunking/types.js';
import { ConfigError, formatZodIssues } from '../errors.js';
import { builtFromRegistries, componentUnion, labelSchema } from '../registry.js';
import { corpusBuilders } from './registry.js';

/** `{ name: <builder>, ...params }`: one option per registered builder, its params checked in the same pass. */
const builderSpecSchema = () => componentUnion([corpusBuilders], 'corpus builder');

/**
 * A corpus build: standalone YAML for `hisrag corpus build <config.yaml>`, or the `corpus`
 * section of an experiment config. Relative paths are resolved against the working directory.
 */
const buildCorpusBuildConfigSchema = () => z.strictObject({
  name: labelSchema().describe('Corpus name: the first part of chunk ids; letters or digits of any script joined by `_`, `-`, `.`, `+`, `=`, `·` (a chunking sweep names its corpora `<name>·maxSize=256`)'),
  builder: builderSpecSchema(),
  out: z.string().min(1).optional().describe('Output directory; default `corpora/<name>`'),
  chunking: ChunkingOptionsSchema.default(ChunkingOptionsSchema.parse({})),
  // Default: on, except for builders whose documents are evidence units (longhisdoc-ocr pages).
  dedupe: z.boolean().optional().describe('Drop chunks whose text exactly repeats an earlier chunk (counted in the manifest)'),
});

/** The corpus build schema, built from the builders registered now (a test or a plugin may add one). */
export const corpusBuildConfigSchema = builtFromRegistries([corpusBuilders], buildCorpusBuildConfigSchema);
export type CorpusBuildConfig = z.input<ReturnType<typeof buildCorpusBuildConfigSchema>>;
export type ParsedCorpusBuildConfig = z.output<ReturnType<typeof buildCorpusBuildConfigSchema>>;

/** Validates a corpus build config; errors name the field (`corpus.builder.input: ...`). */
export function parseCorpusBuildConfig(value: unknown, path = ''): ParsedCorpusBuildConfig {
  const result = corpusBuildConfigSchema().safeParse(value);
  if (!result.success) throw new ConfigError(formatZodIssues(result.error, path));
  return result.data;
}
