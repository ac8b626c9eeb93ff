import { z } from 'zod';
import { componentSpec, positiveInt } from '../registry.js';

/**
 * The `diagnostics:` section of an experiment config (and what `hisrag diagnose --set` edits). Every
 * field has a default, so `hisrag diagnose` on a run without the section works: the extractor and
 * checker then default to the run's judge endpoint (the offline stand-ins for the offline judge).
 */
export const DiagnosticsConfigSchema = z
  .object({
    baseline: z.string().min(1).optional().describe('Condition each condition is decomposed against; default: the run\'s `scoring.baseline` (closed-book)'),
    delta: z.number().positive().optional().describe("Helped when score − baseline ≥ delta, hurt when ≤ −delta; default a tenth of the metric's scale: 10 on 0–100 scores (RS, accuracy, ROUGE-L), 0.1 on 0–1 ones"),
    extractor: componentSpec('claim extractor').optional().describe('Claim extractor `{ name, …params }`: `sentences` (offline), `llm` ({ generator }), `openai` (endpoint params)'),
    checker: componentSpec('claim checker').optional().describe('Claim checker `{ name, …params }`: `lexical` (offline), `llm` ({ generator }), `openai` (endpoint params)'),
    /**
     * Which (claim, passage) pairs reach the checker: each claim against its best `topChunks`
     * passages by `hybrid` (lexical coverage of the claim's content, the condition's retriever
     * relevance between equals: the default, measured in docs/diagnostics.md), `relevance` (the
     * retriever's relevance alone: its embedder, or BM25; lexical where it has none), `lexical`; or
     * `none` (all pairs: RAGChecker's computation).
     */
    prefilter: z.enum(['hybrid', 'relevance', 'lexical', 'none']).default('hybrid').describe('Which (claim, passage) pairs reach the checker: each claim against its best `topChunks` passages by `hybrid` (lexical coverage of the claim\'s content, the condition\'s retriever relevance between equals: the default, measured in…'),
    topChunks: positiveInt().default(3).describe('Passages each claim is checked against (after `prefilter`)'),
    concurrency: positiveInt().default(4).describe('Answers diagnosed at once (each endpoint also bounds its own concurrency)'),
    // Share one cache across runs to reuse gold-side labels.
    cache: z.string().min(1).optional().describe('SQLite cache of every extraction and label; default `<run-dir>/diagnostics-cache.sqlite`'),
    conditions: z.array(z.string().min(1)).min(1).optional().describe('Only these conditions (default: all)'),
    claims: z.boolean().default(true).describe('Turn off the claim-level part (the decomposition needs no model and always runs)'),
  })
  .strict();

export type DiagnosticsConfig = z.infer<typeof DiagnosticsConfigSchema>;
