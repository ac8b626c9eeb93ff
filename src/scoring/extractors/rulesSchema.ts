import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

export const rulesExtractorSchema: ComponentSchema<Record<string, never>> = {
  name: 'rules',
  description: 'Offline rule-based answer extraction (short span, 是/否, option letter, Chinese numerals → integer, lists, 无法回答).',
  params: z.strictObject({}),
};
