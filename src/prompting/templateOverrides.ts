import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError, parseWith } from '../errors.js';
import { AnswerInstructionsSchema } from './answerInstructions.js';
import { requirePlaceholders, type Placeholder } from './fillTemplate.js';
import type { PromptTemplate } from './templates/promptTemplate.js';

/**
 * One prompt override, the same shape for a strategy's template and for each step of a method
 * (`prompts.<step>`): inline text, or a file, or both (inline wins).
 */
export const PromptOverrideSchema = z.object({
  system: z.string().optional().describe('System message text (replaces the built-in one; `""` sends none)'),
  template: z.string().min(1).optional().describe('User message template; it must keep the placeholders of the prompt it replaces (`{question}`, `{context}` …)'),
  templateFile: z.string().min(1).optional().describe('A file with the template: `.json`/`.yaml`/`.yml` holding `{system?, template?}`, any other file is the user template text'),
});
export type PromptOverride = z.infer<typeof PromptOverrideSchema>;

/** Config fields every strategy accepts to edit its built-in template: a prompt override and the answer instructions. */
export const TemplateOverrideSchema = PromptOverrideSchema.extend({
  instructions: AnswerInstructionsSchema.optional().describe('Per-benchmark answer instructions (`{instructions}`)'),
});
export type TemplateOverride = z.infer<typeof TemplateOverrideSchema>;

const TemplateFileSchema = z.object({ system: z.string().optional(), template: z.string().min(1).optional() }).strict();

function readTemplateFile(path: string): { system?: string; template?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`templateFile: cannot read ${path} (${(error as Error).message})`);
  }
  if (!/\.(json|ya?ml)$/i.test(path)) return { template: text };
  let value: unknown;
  try {
    value = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${path}: cannot parse (${(error as Error).message})`);
  }
  return parseWith(TemplateFileSchema, value, (problems) => new ConfigError(`${path}: ${problems}`));
}

/** A built-in prompt with an override applied: inline `system`/`template` over a `templateFile`'s, over the built-in's. */
export function overriddenPrompt(builtIn: PromptTemplate, override: PromptOverride): PromptTemplate {
  const fromFile = override.templateFile ? readTemplateFile(override.templateFile) : {};
  return { system: override.system ?? fromFile.system ?? builtIn.system, user: override.template ?? fromFile.template ?? builtIn.user };
}

/** The template a strategy uses (`overriddenPrompt`), with the placeholders it needs checked. */
export async function resolveTemplate(
  builtIn: PromptTemplate,
  override: TemplateOverride,
  strategy: string,
  required: readonly Placeholder[],
): Promise<PromptTemplate> {
  const template = overriddenPrompt(builtIn, override);
  requirePlaceholders(template.user, required, `strategy "${strategy}" template`);
  return template;
}
