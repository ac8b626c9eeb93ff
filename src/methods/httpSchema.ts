import { z } from 'zod';
import { ResponseMappingSchema } from './external/mapping.js';
import { CallPolicyShape } from './external/callPolicyParams.js';
import { LocalServiceSchema } from './external/localService.js';
import { unknownPlaceholderMessage, unknownPlaceholders } from './external/template.js';
import type { ComponentSchema } from '../registry.js';

export const HttpParamsSchema = z
  .object({
    url: z.string().regex(/^https?:\/\/[^\s/]+/, { error: 'expected an http:// or https:// URL' }).describe('The endpoint; `{field}` placeholders are filled from the item, URL-encoded (`…/ask?q={question}`)'),
    method: z.enum(['POST', 'GET', 'PUT']).default('POST').describe('HTTP method of the request'),
    headers: z.record(z.string(), z.string()).default({}).describe('Plain headers (never secrets: stored with the run\'s config)'),
    apiKeyEnv: z.string().min(1).optional().describe('Name of the environment variable holding the API key, sent as `Authorization: Bearer <key>`'),
    envHeaders: z.array(z.object({ header: z.string().min(1), env: z.string().min(1), prefix: z.string().default('') }).strict()).default([]).describe('Other headers whose values come from environment variables: `[{ header: X-Api-Key, env: MY_KEY }]`'),
    body: z.unknown().default({ question: '{question}', itemId: '{itemId}', docId: '{docId}' }).describe('JSON body template (POST, PUT); `{question}`, `{itemId}`, `{docId}`, `{options}`, `{meta.<field>}` … from the item'),
    response: ResponseMappingSchema.default({}).describe('Where the reply holds the answer, its contexts and usage (paths into the JSON body)'),
    timeoutMs: z.number().int().positive().default(120_000).describe('A request with no reply after this many ms fails (and is retried)'),
    ...CallPolicyShape,
    serve: LocalServiceSchema.optional().describe('A local service to start before the first question (examples, tests), on the URL\'s host and port'),
  })
  .strict()
  .superRefine((p, ctx) => {
    for (const field of ['url', 'body'] as const) {
      const names = unknownPlaceholders(p[field]);
      if (names.length) ctx.addIssue({ code: 'custom', message: unknownPlaceholderMessage(names), path: [field] });
    }
  });
export type HttpParams = z.infer<typeof HttpParamsSchema>;

export const httpSchema: ComponentSchema<HttpParams> = {
  name: 'http',
  description: 'any RAG system behind an HTTP API: one request per question, the reply mapped to answer, contexts and usage',
  params: HttpParamsSchema,
};
