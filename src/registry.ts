import { z } from 'zod';
import { ConfigError, formatZodIssues } from './errors.js';
import { levenshtein } from './text/levenshtein.js';

/**
 * What a config names: an implementation's name, description and params. `params` validates the
 * part of the config that belongs to this implementation (strict: unknown keys are rejected). It
 * lives in a module apart from the implementation (`fooSchema.ts` beside `foo.ts`), so checking a
 * config, planning and writing the JSON Schema import schemas only.
 */
export interface ComponentSchema<Params> {
  name: string;
  description: string;
  params: z.ZodType<Params>;
}

/**
 * One named implementation of a pipeline stage: its schema and how to build it, so a config can
 * pick an implementation by name and the runner never knows which one it holds.
 */
export interface RegistryEntry<Params, Product, Context> extends ComponentSchema<Params> {
  create: Factory<Params, Product, Context>;
}

/** Builds a component from its checked params (and the stage's context). */
export type Factory<Params, Product, Context = void> = (params: Params, context: Context) => Product | Promise<Product>;

/** A registry per stage: embedders, retrievers, generators, judges, prompt strategies, builders. */
export class Registry<Product, Context = void> {
  private readonly entries = new Map<string, RegistryEntry<unknown, Product, Context>>();

  constructor(readonly stage: string) {}

  /** An implementation already loaded (a test's, a library user's `fromLangChain(…)`). */
  register<Params>(entry: RegistryEntry<Params, Product, Context>): this {
    if (this.entries.has(entry.name)) throw new Error(`${this.stage} "${entry.name}" is registered twice`);
    // `create` is handed only what this entry's own `params` parsed (`create` below), so its Params hold there.
    this.entries.set(entry.name, { ...entry, create: (params, context) => entry.create(params as Params, context) });
    return this;
  }

  /**
   * A built-in implementation: its schema now, its module (`load`, a dynamic `import()`) only when
   * a component is created, so that naming it in a config loads none of its libraries.
   */
  registerLazy<Params>(schema: ComponentSchema<Params>, load: () => Promise<Factory<Params, Product, Context>>): this {
    return this.register({ ...schema, create: async (params, context) => (await load())(params, context) });
  }

  /** Removes an implementation registered earlier (a plugin unloaded, a test's component leaving with its file). */
  unregister(name: string): this {
    this.entries.delete(name);
    return this;
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** Every registered implementation, sorted by name (the config schema is built from them). */
  list(): RegistryEntry<unknown, Product, Context>[] {
    return this.names().map((name) => this.entries.get(name)!);
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

export const nonEmptyString = (what = 'a non-empty string') =>
  z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });

/**
 * The one naming rule of every label a config gives (retrievers, strategies and methods, models,
 * corpora, benchmarks): a letter or digit of any script, then letters, digits (and combining marks,
 * which some scripts' letters need) joined by the separators condition names and chunking sweeps use.
 */
export const LABEL_PATTERN = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}_.+=·-]*$/u;
export const LABEL_RULE = 'letters or digits of any script (稠密检索, bm25), joined by "_", "-", ".", "+", "=" or "·"';
const LABEL_MESSAGE = `expected a label: ${LABEL_RULE}`;

/** What the JSON Schema shows for a field that is normalised before it is checked (zod cannot describe a preprocess), or checked by more than JSON Schema says. */
export const INPUT_JSON_SCHEMA = 'inputJsonSchema';

/**
 * A label under the one naming rule, with its one message. Its JSON Schema has no `pattern`: a
 * validator that compiles patterns without the `u` flag (zod's own `fromJSONSchema`) reads
 * `\p{L}` as the letters "p{L}"; the config check applies the rule.
 */
export const labelSchema = () =>
  z
    .string({ error: LABEL_MESSAGE })
    .regex(LABEL_PATTERN, { error: LABEL_MESSAGE })
    .meta({ [INPUT_JSON_SCHEMA]: { type: 'string', minLength: 1 } });

export type Shape = Record<string, z.ZodType>;

/** The closest known name within two edits (a typo), for "did you mean". */
export function nearest(word: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = levenshtein(word.toLowerCase(), name.toLowerCase());
    if (d <= 2 && d < word.length && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** `strategy` → `strategies`, `model` → `models`: a key written in the singular is a near miss too. */
const plural = (word: string) => (word.endsWith('y') ? `${word.slice(0, -1)}ies` : `${word}s`);

/**
 * A parse option (`schema.safeParse(v, { error: unknownKeyHints })`) that gives each key a strict
 * object refuses a "did you mean" from the keys it knows: one line per key, in the issue's key
 * order, as `formatZodIssues` prints them (`strategy: unknown key; did you mean "strategies"?`).
 */
export function unknownKeyHints(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape ?? {};
  const known = Object.keys(shape);
  return issue.keys
    .map((key) => {
      const guess = nearest(key, known) ?? known.find((k) => plural(key) === k || plural(k) === key);
      return guess ? `unknown key; did you mean "${guess}"?` : 'unknown key';
    })
    .join('\n');
}

/** `unknown retriever "hnws" (known: …); did you mean "hnsw"?`, or what a spec without a name lacks. */
export function unknownNameMessage(input: unknown, what: string, known: readonly string[], listing = `known: ${known.join(', ')}`): string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return `expected { name: <${what}>, … }`;
  const name = (input as { name?: unknown }).name;
  if (typeof name !== 'string' || name === '') return `expected the name of a registered ${what}`;
  const guess = nearest(name, known);
  return `unknown ${what} "${name}" (${listing})${guess ? `; did you mean "${guess}"?` : ''}`;
}

/** What the config schema reads of a registry of any product and context (`never`: a context none of it is called with): its stage, names and entries' schemas. */
export type RegistryView = Pick<Registry<unknown, never>, 'list' | 'names' | 'stage'>;

/** The names registered in these registries, as one listing: `strategies: …; methods: …` (one registry: `known: …`). */
export function listingOf(registries: RegistryView[]): string {
  if (registries.length === 1) return `known: ${registries[0]!.names().join(', ')}`;
  return registries.map((r) => `${r.stage === 'strategy' ? 'strategies' : `${r.stage}s`}: ${r.names().join(', ')}`).join('; ');
}

/** A field that takes any `{ name, … }` spec (a nested component, checked later by its registry). */
function isOpenSpec(field: z.ZodType): boolean {
  const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
  return inner instanceof z.ZodObject && 'name' in inner.shape && inner._zod.def.catchall !== undefined && inner._zod.def.catchall._zod.def.type !== 'never';
}

/**
 * One option per registered implementation of the given registries, each with `extra` fields; a
 * param that takes an open nested spec (`generator: { name, … }`) and is named in `nested` gets
 * that stage's union instead, so its params are checked in the same pass too.
 */
function optionsOf(registries: RegistryView[], extra: Shape, nested: Record<string, () => z.ZodType>): z.ZodObject[] {
  return registries.flatMap((registry) =>
    registry.list().map((entry) => {
      const params = entry.params as unknown as z.ZodObject;
      if (!(params instanceof z.ZodObject)) throw new Error(`${registry.stage} "${entry.name}": params must be an object schema`);
      const checked: Shape = {};
      for (const [key, make] of Object.entries(nested)) {
        const field = params.shape[key] as z.ZodType | undefined;
        if (!field || !isOpenSpec(field)) continue;
        const union = field.description ? make().describe(field.description) : make();
        checked[key] = field instanceof z.ZodOptional ? union.optional() : union;
      }
      return params.safeExtend({ ...checked, name: z.literal(entry.name), ...extra }).meta({ title: `${registry.stage}: ${entry.name}`, description: entry.description });
    }),
  );
}

/** A component spec as the config schema types it: the name, the entry's params, and the `extra` fields. */
export type ComponentSpecSchema<Extra extends Shape> = keyof Extra extends never
  ? z.ZodType<ComponentSpec, ComponentSpec>
  : z.ZodType<ComponentSpec & z.output<z.ZodObject<Extra>>, ComponentSpec & z.input<z.ZodObject<Extra>>>;

/**
 * `{ name, …params }` of one of the registries' implementations (plus `extra` fields): a union
 * discriminated on `name`, so the params are checked by the named entry's own schema in the same
 * pass, and the JSON Schema lists each entry with its params. Built from the registries as they
 * are now (an implementation registered later needs a new one).
 */
export function componentUnion<Extra extends Shape = {}>(
  registries: RegistryView[],
  what: string,
  extra: Extra = {} as Extra,
  nested: Record<string, () => z.ZodType> = {},
): ComponentSpecSchema<Extra> {
  const options = optionsOf(registries, extra, nested);
  const known = options.map((o) => (o.shape.name as z.ZodLiteral<string>).value).sort();
  return z.discriminatedUnion('name', options as [z.ZodObject, ...z.ZodObject[]], {
    error: (issue) => unknownNameMessage(issue.input, what, known, listingOf(registries)),
  }) as unknown as ComponentSpecSchema<Extra>;
}

/** A key that changes when an implementation is registered in any of these registries: a schema built from them is then stale. */
export function registriesKey(registries: RegistryView[]): string {
  return registries.map((registry) => registry.names().join(',')).join(';');
}

/** `build()` again only when one of the registries has gained an implementation since the last build. */
export function builtFromRegistries<T>(registries: RegistryView[], build: () => T): () => T {
  let cached: { key: string; value: T } | undefined;
  return () => {
    const key = registriesKey(registries);
    if (cached?.key !== key) cached = { key, value: build() };
    return cached.value;
  };
}

/** `{ name: <registered implementation>, ...its params }`; params are checked against the registry. */
export const componentSpec = (stage: string) =>
  z
    .object({ name: nonEmptyString(`the name of a registered ${stage}`) })
    .catchall(z.unknown());

export type ComponentSpec = { name: string } & Record<string, unknown>;
