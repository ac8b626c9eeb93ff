import { ConfigError } from '../errors.js';

export const PLACEHOLDERS = ['question', 'context', 'instructions'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/**
 * Replaces `{question}`, `{context}` and `{instructions}`; any other braces are left alone so
 * templates may contain JSON or `\boxed{}` examples. Blank runs left by empty values collapse.
 */
export function fillTemplate(template: string, values: Partial<Record<Placeholder, string>>): string {
  const filled = template.replace(/\{(question|context|instructions)\}/g, (_, key: Placeholder) => values[key] ?? '');
  return filled.replace(/\n{3,}/g, '\n\n').trim();
}

/** Checks at config time that a template has the placeholders its strategy fills. */
export function requirePlaceholders(template: string, required: readonly Placeholder[], where: string): void {
  const missing = required.filter((p) => !template.includes(`{${p}}`));
  if (missing.length > 0) {
    throw new ConfigError(`${where}: the template lacks ${missing.map((p) => `{${p}}`).join(', ')}`);
  }
}
