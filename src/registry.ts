import { z } from 'zod';
import { ConfigError, formatZodIssues } from './errors.js';

/**
 * One named implementation of a pipeline stage. `params` validates the part of the
 * config that belongs to this implementation (strict: unknown keys are rejected), so a
 * config can pick an implementation by name and the runner never knows which one it holds.
 */
export interface RegistryEntry<Params, Product, Context> {
  name: string;
  description: string;
  params: z.ZodType<Params>;
  create(params: Params, context: Context): Product | Promise<Product>;
}


/** A registry per stage: embedders, retrievers, generators, judges, prompt strategies, builders. */
export class Registry<Product, Context = void> {
  private readonly entries = new Map<string, RegistryEntry<any, Product, Context>>();

  constructor(readonly stage: string) {}

  register<Params>(entry: RegistryEntry<Params, Product, Context>): this {
    if (this.entries.has(entry.name)) throw new Error(`${this.stage} "${entry.name}" is registered twice`);
    this.entries.set(entry.name, entry as RegistryEntry<any, Product, Context>);
    return this;
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  entry(name: string, path = this.stage): RegistryEntry<unknown, Product, Context> {
    const found = this.entries.get(name);
    if (!found) {
      throw new ConfigError(`${path}.name: unknown ${this.stage} "${name}" (known: ${this.names().join(', ')})`);
    }
    return found;
  }

  /** Validates `spec` (`{ name, ...params }`) against the named implementation; errors name `path`. */
  parse(spec: { name: string } & Record<string, unknown>, path = this.stage): unknown {
    const { name, ...rest } = spec;
    const entry = this.entry(name, path);
    const result = entry.params.safeParse(rest);
    if (!result.success) throw new ConfigError(formatZodIssues(result.error, path));
    return result.data;
  }

  async create(spec: { name: string } & Record<string, unknown>, context: Context, path = this.stage): Promise<Product> {
    const params = this.parse(spec, path);
    return this.entry(spec.name, path).create(params, context);
  }
}

// Field schemas with messages a researcher can act on (zod's defaults read like type-checker output).
const POSITIVE_INT = 'expected a positive integer';

export const positiveInt = () =>
  z.number({ error: POSITIVE_INT }).int({ error: POSITIVE_INT }).positive({ error: POSITIVE_INT });

export const nonNegativeInt = () =>
  z
    .number({ error: 'expected a non-negative integer' })
    .int({ error: 'expected a non-negative integer' })
    .nonnegative({ error: 'expected a non-negative integer' });

export const nonEmptyString = (what = 'a non-empty string') =>
  z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });

/** `{ name: <registered implementation>, ...its params }`; params are checked against the registry. */
export const componentSpec = (stage: string) =>
  z
    .object({ name: nonEmptyString(`the name of a registered ${stage}`) })
    .catchall(z.unknown());

export type ComponentSpec = { name: string } & Record<string, unknown>;
