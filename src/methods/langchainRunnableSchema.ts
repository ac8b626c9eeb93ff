import { z } from 'zod';
import { ResponseMappingSchema } from './external/mapping.js';
import { CallPolicyShape } from './external/callPolicyParams.js';
import { unknownPlaceholderMessage, unknownPlaceholders } from './external/template.js';
import type { ComponentSchema } from '../registry.js';

export const LangChainRunnableParamsSchema = z
  .object({
    module: z.string().min(1).describe('The module (a path, relative to the working directory) exporting the Runnable'),
    export: z.string().min(1).default('default').describe('The export: a Runnable (an LCEL chain), or a function of `options` returning one (maybe async)'),
    options: z.record(z.string(), z.unknown()).default({}).describe('Passed to an exported function (index paths, k, the model\'s baseURL …); part of the cache key'),
    input: z.unknown().default({ question: '{question}', itemId: '{itemId}', docId: '{docId}' }).describe('What the Runnable is invoked with, a JSON template of the item\'s fields'),
    response: ResponseMappingSchema.default({}).describe('Paths into the Runnable\'s output: a string output is the answer; an object\'s answer is at `answer`; contexts at `contexts`, else the Documents its retrievers returned; usage from its models\' callbacks when not mapped'),
    timeoutMs: z.number().int().positive().default(300_000).describe('A call with no result after this many ms fails (and is retried)'),
    ...CallPolicyShape,
    retries: z.number().int().min(0).default(2).describe('Retries of a failed call, with exponential backoff'),
  })
  .strict()
  .superRefine((p, ctx) => {
    const names = unknownPlaceholders(p.input);
    if (names.length) ctx.addIssue({ code: 'custom', message: unknownPlaceholderMessage(names), path: ['input'] });
  });
export type LangChainRunnableParams = z.infer<typeof LangChainRunnableParamsSchema>;

export const langchainRunnableSchema: ComponentSchema<LangChainRunnableParams> = {
  name: 'langchain-runnable',
  description: 'a LangChain.js Runnable (an LCEL chain) from a module: invoked per question, its answer scored, its Documents the contexts',
  params: LangChainRunnableParamsSchema,
};
