import { z } from 'zod';
import { INPUT_JSON_SCHEMA } from '../registry.js';
import { experimentConfigSchema, SHORTHANDS } from './experiment.js';

type JsonSchema = Record<string, unknown>;

type Node = JsonSchema & { properties?: Record<string, Node>; required?: string[]; items?: Node };

/** Lets the file say `benchmark: {…}` (and `retrieval.retriever`) where the checked config has a list of one. */
function withShorthands(schema: Node): void {
  for (const { at, singular, plural } of SHORTHANDS) {
    const node = at.reduce<Node | undefined>((n, key) => n?.properties?.[key], schema);
    const list = node?.properties?.[plural];
    if (!node?.properties || !list?.items) continue;
    node.properties[singular] = { ...list.items, description: `shorthand for a list of one \`${plural}\`` };
    // Either may be written (the checked config requires one, not both); no `oneOf` of `required`s, which editors' validators read unevenly.
    node.required = (node.required ?? []).filter((key) => key !== plural);
  }
}

/**
 * The experiment file's schema as JSON Schema (draft 2020-12), for editors
 * (`# yaml-language-server: $schema=…`): what a file may say, before defaults are filled in.
 * Fields normalised before they are checked (a depth or a list of depths) carry the JSON Schema of
 * what they accept, since zod cannot describe a preprocess.
 */
export function experimentJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(experimentConfigSchema(), {
    io: 'input',
    unrepresentable: 'any',
    reused: 'inline',
    override: (ctx) => {
      const accepts = z.globalRegistry.get(ctx.zodSchema as unknown as z.ZodType)?.[INPUT_JSON_SCHEMA];
      if (!accepts) return;
      for (const key of Object.keys(ctx.jsonSchema)) if (key !== 'description') delete ctx.jsonSchema[key];
      Object.assign(ctx.jsonSchema, accepts);
    },
  }) as JsonSchema;
  withShorthands(schema);
  return { ...schema, title: 'hisrag experiment config', $id: 'https://hisrag.dev/schema/experiment.json' };
}
