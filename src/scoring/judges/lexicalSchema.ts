import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const LexicalParams = z.strictObject({
  threshold: z.number().gt(0).max(1).default(0.5).describe('Share of an item\'s content that must appear in the answer for a hit (0–1]'),
});

export const lexicalSchema: ComponentSchema<z.infer<typeof LexicalParams>> = {
  name: 'lexical',
  description: 'Offline lexical judge: a bonus item is hit when enough of its content appears in the answer; deductions are never hit.',
  params: LexicalParams,
};
