import { z } from 'zod';
import { ChunkingOptionsSchema } from '../chunking/types.js';
import { ConfigError, formatZodIssues } from '../errors.js';
import { corpusBuilders } from './registry.js';

/** `{ name: <builder>, ...params }`; the params are checked against the named builder's schema. */
export const BuilderSpecSchema = z
  .looseObject({ name: z.string().min(1) })
  .superRefine((spec, ctx) => {
    if (!corpusBuilders.has(spec.name)) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: `unknown corpus builder "${spec.name}" (known: ${corpusBuilders.names().join(', ')})` });
      return;
    }
    const { name: _name, ...params } = spec;
    const result = corpusBuilders.entry(spec.name).params.safeParse(params);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: issue.path as PropertyKey[], message: issue.message });
    }
  });

/**
 * A corpus build: standalone YAML for `hisrag corpus build <config.yaml>`, or the `corpus`
 * section of an experiment config. Relative paths are resolved against the working directory.
 */
export const CorpusBuildConfigSchema = z.strictObject({
  /** Corpus name: the first part of chunk ids; letters, digits, `_`, `-`, `.`. */
  name: z.string().regex(/^[A-Za-z0-9][\w.-]*$/, 'letters, digits, _ - . only'),
  builder: BuilderSpecSchema,
  /** Output directory; default `corpora/<name>`. */
  out: z.string().min(1).optional(),
  chunking: ChunkingOptionsSchema.default(ChunkingOptionsSchema.parse({})),
  /**
   * Drop chunks whose text exactly repeats an earlier chunk (counted in the manifest). Default: on,
   * except for builders whose documents are evidence units (longhisdoc-ocr pages).
   */
  dedupe: z.boolean().optional(),
});
export type CorpusBuildConfig = z.input<typeof CorpusBuildConfigSchema>;
export type ParsedCorpusBuildConfig = z.output<typeof CorpusBuildConfigSchema>;

/** Validates a corpus build config; errors name the field (`corpus.builder.input: ...`). */
export function parseCorpusBuildConfig(value: unknown, path = ''): ParsedCorpusBuildConfig {
  const result = CorpusBuildConfigSchema.safeParse(value);
  if (!result.success) throw new ConfigError(formatZodIssues(result.error, path));
  return result.data;
}
