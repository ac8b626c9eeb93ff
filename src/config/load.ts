import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { ConfigError, formatZodIssues } from '../errors.js';
import { unknownKeyHints } from '../registry.js';
import { z } from 'zod';
import { expandChunkingSweeps } from './chunkingSweep.js';
import { experimentFileSchema, SHORTHANDS, specsAsWritten, writtenPath, type ExperimentConfig } from './experiment.js';

/** Parses YAML text into a plain value; syntax errors name file, line and column. */
export function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const pos = first.linePos?.[0];
    const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
    throw new ConfigError(`${where}: invalid YAML: ${first.message.split('\n')[0]}`);
  }
  return doc.toJS();
}

/** Splits `models[0].model` into ['models', 0, 'model']. */
function overridePath(path: string, override: string): (string | number)[] {
  const parts: (string | number)[] = [];
  for (const segment of path.split('.')) {
    const match = /^([^[\]]+)((?:\[\d+\])*)$/.exec(segment);
    if (!match) throw new ConfigError(`--set ${override}: cannot read the path "${path}"`);
    parts.push(match[1]!);
    for (const index of match[2]!.matchAll(/\[(\d+)\]/g)) parts.push(Number(index[1]));
  }
  return parts;
}

/**
 * Applies `--set path=value` overrides (value parsed as YAML): `--set retrieval.k=[10,50]`,
 * `--set models[0].model=deepseek-chat`.
 */
export function applyOverrides(config: unknown, overrides: string[]): unknown {
  const root = (config ?? {}) as Record<string, unknown>;
  for (const override of overrides) {
    const eq = override.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--set ${override}: expected path=value`);
    const path = overridePath(override.slice(0, eq), override);
    const value = parseYaml(override.slice(eq + 1), `--set ${override}`);
    let node: Record<string | number, unknown> = root;
    for (const [i, key] of path.slice(0, -1).entries()) {
      const next = node[key];
      if (next === undefined) {
        node[key] = typeof path[i + 1] === 'number' ? [] : {};
      } else if (typeof next !== 'object' || next === null) {
        throw new ConfigError(`--set ${override}: ${String(key)} is not an object or a list`);
      } else if (typeof path[i + 1] === 'number' && !Array.isArray(next)) {
        throw new ConfigError(`--set ${override}: ${String(key)} is not a list`);
      }
      node = node[key] as Record<string | number, unknown>;
    }
    node[path[path.length - 1]!] = value;
  }
  return root;
}

/** A refused key's "did you mean"; a shorthand written beside its list, the one to keep. */
function configIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const input = issue.input as Record<string, unknown> | undefined;
  const hints = unknownKeyHints(issue)!.split('\n');
  return issue.keys
    .map((key, i) => {
      const shorthand = SHORTHANDS.find((s) => s.singular === key && input && s.plural in input);
      return shorthand ? `unknown key beside \`${shorthand.plural}\`; give the list only (\`${key}\` is its shorthand for a list of one)` : hints[i];
    })
    .join('\n');
}

export function validateExperimentConfig(value: unknown, file: string): ExperimentConfig {
  const invalid = (problems: string) => new ConfigError(`${file}: invalid experiment config:\n${problems}`);
  const result = experimentFileSchema().safeParse(value, { error: configIssueMessage });
  if (!result.success) throw invalid(formatZodIssues(new z.ZodError(result.error.issues.map((issue) => ({ ...issue, path: writtenPath(value, issue.path) })))));
  try {
    // Expanded once checked (specs as written, sweeps' lists still in place): a retriever following two sweeps is refused here.
    return expandChunkingSweeps(specsAsWritten(value, result.data));
  } catch (error) {
    throw error instanceof ConfigError ? invalid(error.message) : error;
  }
}

/** A YAML (or JSON) file's value; one that cannot be read or parsed is a ConfigError naming it (syntax errors with line and column). */
export async function readYamlFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read config (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseYaml(text, file);
}

export async function loadExperimentConfig(file: string, overrides: string[] = []): Promise<ExperimentConfig> {
  return validateExperimentConfig(applyOverrides(await readYamlFile(file), overrides), file);
}
