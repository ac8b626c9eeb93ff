import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { messagesOf } from '../prompting/templateStrategy.js';
import { overriddenPrompt, PromptOverrideSchema as SharedPromptOverrideSchema, type PromptOverride } from '../prompting/templateOverrides.js';
import type { TextChatMessage } from '../prompting/types.js';

/** A built-in prompt of one method step: system text, user template, and the slots it must keep. */
export interface MethodPrompt {
  system: string;
  user: string;
  /** Placeholders (`{question}`, `{context}` …) the step fills; an override must keep them. */
  slots: readonly string[];
}

/** What a config may replace of one step's prompt (`prompts: { decide: { template: … } }`): the strategies' override, per step. */
export const PromptOverrideSchema = SharedPromptOverrideSchema.strict();
export type { PromptOverride };

export const PROMPT_OVERRIDES_DESCRIPTION =
  "Prompt overrides per step: `<step>: { system, template, templateFile }`, the shape a strategy takes (the template keeps the step's placeholders); other steps keep the built-in prompt";

/** The `prompts` field of a method's params: an optional override per named step, unknown steps rejected. */
export function promptOverridesSchema<Step extends string>(steps: readonly Step[]) {
  const shape = Object.fromEntries(steps.map((step) => [step, PromptOverrideSchema.optional()])) as Record<Step, z.ZodOptional<typeof PromptOverrideSchema>>;
  return z.object(shape).strict().default({} as never).describe(PROMPT_OVERRIDES_DESCRIPTION);
}

/** The prompts a method will use: the built-ins with the config's overrides, slots checked now (config time). */
export function resolvePrompts<Step extends string>(
  method: string,
  builtIn: Record<Step, MethodPrompt>,
  overrides: Partial<Record<Step, PromptOverride | undefined>>,
): Record<Step, MethodPrompt> {
  const out = {} as Record<Step, MethodPrompt>;
  for (const step of Object.keys(builtIn) as Step[]) {
    const base = builtIn[step];
    const override = overrides[step] ?? {};
    const prompt = { ...overriddenPrompt(base, override), slots: base.slots };
    const missing = prompt.slots.filter((slot) => !prompt.user.includes(`{${slot}}`));
    if (missing.length) throw new ConfigError(`method "${method}": prompts.${step}.template lacks ${missing.map((s) => `{${s}}`).join(', ')}`);
    out[step] = prompt;
  }
  return out;
}

/**
 * The messages of one step: `{slot}` replaced for the slots given (other braces, e.g. `\boxed{}`,
 * are left alone); blank runs left by empty values collapse.
 */
export function stepMessages(prompt: MethodPrompt, values: Record<string, string | number>): TextChatMessage[] {
  const fill = (text: string) =>
    text
      .replace(/\{(\w+)\}/g, (whole, slot: string) => (slot in values ? String(values[slot]) : whole))
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  return messagesOf(fill(prompt.system), fill(prompt.user));
}
