import { z } from 'zod';
import { PromptOverrideSchema } from './prompts.js';
import { ReaderParamsShape } from './reader.js';
import type { ComponentSchema } from '../registry.js';

export const AgentParamsSchema = z
  .object({
    maxSearches: z.number().int().min(0).max(50).default(4).describe('Searches the model may make; calls past it are refused with a tool message (LangChain\'s tool-call limit)'),
    maxSteps: z.number().int().min(2).max(200).default(12).describe('LangGraph\'s recursion limit: model turns and tool rounds together; past it the best answer so far counts'),
    instructions: ReaderParamsShape.instructions,
    prompts: z.object({ agent: PromptOverrideSchema.optional() }).strict().default({}).describe('The agent\'s system prompt and first message (`{question}`, `{instructions}`)'),
  })
  .strict();
export type AgentParams = z.infer<typeof AgentParamsSchema>;

export const agentSchema: ComponentSchema<AgentParams> = {
  name: 'agent',
  description: 'a tool-calling agent (LangChain createAgent) that searches as often as it needs, up to maxSearches; needs a model with tool calling',
  params: AgentParamsSchema,
};
