import { z } from 'zod';
import type { ComponentSchema } from '../../registry.js';

/** Wording by which an answer shows it leans on retrieved passages. */
export const DEFAULT_CUE = '据检索|检索材料|根据材料|据材料|\\[\\d+\\]';

export const OvercreditParams = z.strictObject({
  threshold: z.number().gt(0).max(1).default(0.5).describe('Share of an item\'s content that must appear in the answer for a lexical hit (0–1]'),
  ragRate: z.number().min(0).max(1).default(0.4).describe('Probability a missed bonus item is marked hit when the answer shows it used retrieved passages'),
  baseRate: z.number().min(0).max(1).default(0.05).describe('Probability a missed bonus item is marked hit otherwise'),
  cue: z.string().default(DEFAULT_CUE).describe('Regular expression that marks an answer as using retrieved passages'),
  seed: z.number().int().default(0).describe('Seed of the over-credit draws'),
});

export const overcreditSchema: ComponentSchema<z.infer<typeof OvercreditParams>> = {
  name: 'lexical-overcredit',
  description: 'Offline, deliberately biased stand-in (judge-check demo): the lexical judge, but a missed bonus item is marked hit with a seeded probability (ragRate when the answer shows it used retrieved passages, baseRate otherwise).',
  params: OvercreditParams,
};
