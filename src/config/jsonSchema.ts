import { z } from 'zod';
import { INPUT_JSON_SCHEMA } from './components.js';
import { experimentConfigSchema } from './experiment.js';

type JsonSchema = Record<string, unknown>;

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
  return { ...schema, title: 'hisrag experiment config', $id: 'https://hisrag.dev/schema/experiment.json' };
}
