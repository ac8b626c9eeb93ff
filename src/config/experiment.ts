import { z } from 'zod';
import { REDUCERS } from '../statistics/samples.js';
import { IndexKindSchema } from '../index/manifest.js';
import { componentSpec, nonEmptyString, positiveInt } from '../registry.js';
import { DiagnosticsConfigSchema } from '../diagnostics/config.js';

/** How a question's repeated samples are reduced to one score (scoring.reducer). */
export const ReducerSchema = z.enum(REDUCERS);

/**
 * An experiment: benchmarks × retrievers × depths × prompting strategies × models, scored by
 * one shared scorer. Every component is `{ name, ...params }` picked from its stage's registry;
 * the registries validate the params (see `validateExperiment`). Paths are relative to the
 * working directory the run is started from.
 */

/** A retriever in the grid; `label` names it in condition names (`dense/rag@10`). */
const RetrieverEntrySchema = componentSpec('retriever').extend({
  label: z.string().regex(/^[\w.-]+$/, { error: 'expected letters, digits, ".", "_" or "-"' }).optional(),
});

/** Retrieval depths: one or a list. */
const DepthsSchema = z.preprocess(
  (v) => (typeof v === 'number' ? [v] : v),
  z.array(positiveInt(), { error: 'expected a depth or a list of depths' }).min(1, { error: 'expected at least one depth' }),
);

const RetrievalSchema = z
  .object({
    /** Retrieval depths; every strategy that uses retrieval runs once per retriever × k (an entry's own `k:` overrides it; without either, a strategy's default depths apply). */
    k: DepthsSchema.optional(),
    retrievers: z.array(RetrieverEntrySchema).min(1, { error: 'expected at least one retriever' }).optional(),
    /** Shorthand for a single retriever. */
    retriever: RetrieverEntrySchema.optional(),
    /**
     * `corpus`: rank the whole index. `document`: rank only the chunks of the question's own
     * document (LongHisDoc's setting: the pages of one book).
     */
    scope: z.enum(['corpus', 'document']).default('corpus'),
  })
  .strict()
  .refine((r) => Boolean(r.retrievers) !== Boolean(r.retriever), {
    error: 'give either `retriever` or `retrievers` (exactly one)',
  });

/** What the endpoint charges, in any one currency per million tokens: gives each answer a price. */
const PriceSchema = z
  .object({
    inputPerMillion: z.number().nonnegative(),
    outputPerMillion: z.number().nonnegative(),
    /** The share of the live price a batch API charges (`batch: true` on the model's spec): OpenAI's and DashScope's 50%. */
    batchDiscount: z.number().gt(0, { error: 'expected a share of the live price in (0, 1]' }).max(1, { error: 'expected a share of the live price in (0, 1]' }).default(0.5),
  })
  .strict();

const ModelEntrySchema = componentSpec('generator').extend({
  /** Name of the model in tables; defaults to the generator's own model name. */
  label: z.string().min(1).optional(),
  price: PriceSchema.optional(),
  /** Answers per question and condition (repeated samples; the run's `samples` when omitted, else 1). */
  samples: positiveInt().optional(),
});

/**
 * A prompting strategy (`closed-book`, `rag` …) or a RAG method (`ircot`, `refine` …), by name or
 * `{ name, …params }`; `k:` gives a retrieving entry depths of its own (page retrieval at 1–10 pages
 * beside passage retrieval at 10–100).
 */
const StrategyEntrySchema = z.union([
  nonEmptyString('a strategy name'),
  componentSpec('strategy').extend({ label: z.string().min(1).optional(), k: DepthsSchema.optional() }),
]);

const FixtureModelSchema = z
  .object({
    out: nonEmptyString('an output directory'),
    seed: z.number().int().default(42),
    dim: positiveInt().default(64),
  })
  .strict();

const IndexBuildSchema = z
  .object({
    out: nonEmptyString('an index directory'),
    corpus: nonEmptyString('a corpus directory'),
    retriever: IndexKindSchema,
    embedder: componentSpec('embedder').optional(),
  })
  .catchall(z.unknown());

export const ExperimentConfigSchema = z
  .object({
    name: z.string().regex(/^[\w.-]+$/, { error: 'expected letters, digits, ".", "_" or "-"' }),
    description: z.string().optional(),
    seed: z.number().int().default(42),
    /** Parent folder of run directories. */
    output: z.string().default('experiments/runs'),
    /** Artefacts built before the run when they are missing (idempotent). */
    prepare: z
      .object({
        fixtureModel: FixtureModelSchema.optional(),
        /** The generated cross-encoder (query-coverage fixture) that offline reranking demos use. */
        rerankerModel: FixtureModelSchema.optional(),
        /** The generated CLIP-style dual encoder (text ↔ page image) that offline image-retrieval demos use. */
        clipModel: FixtureModelSchema.extend({ imageSize: positiveInt().optional() }).strict().optional(),
        /** The generated causal LM (GPT-2-shaped bigram stand-in) that offline context-compression demos score tokens with. */
        causalLmModel: FixtureModelSchema.optional(),
        corpora: z.array(z.record(z.string(), z.unknown())).optional(),
        indexes: z.array(IndexBuildSchema).optional(),
      })
      .strict()
      .optional(),
    benchmarks: z.array(componentSpec('benchmark')).min(1, { error: 'expected at least one benchmark' }).optional(),
    benchmark: componentSpec('benchmark').optional(),
    retrieval: RetrievalSchema.optional(),
    strategies: z.array(StrategyEntrySchema).min(1, { error: 'expected at least one strategy' }),
    models: z.array(ModelEntrySchema).min(1, { error: 'expected at least one model' }),
    /**
     * Answers per question and condition for every model without its own `samples` (default 1):
     * repeated samples of a model at temperature > 0, reduced per question by `scoring.reducer`.
     */
    samples: positiveInt().optional(),
    judge: componentSpec('judge').optional(),
    extractor: componentSpec('extractor').optional(),
    scoring: z
      .object({
        /** `reference` reproduces the published implementation's rubric-parsing quirk. */
        compat: z.enum(['hisrag', 'reference']).default('hisrag'),
        textMetrics: z.boolean().default(true),
        /** Encoder (local directory or model id) whose token vectors BERTScore matches; omit for no BERTScore. */
        bertScoreModel: z.string().min(1).optional(),
        bootstrapResamples: positiveInt().default(1000),
        /** Condition every paired difference is taken against. */
        baseline: z.string().default('closed-book'),
        /** Further conditions every condition is also compared with (e.g. OCR input beside closed-book); an image-input condition against a text-only one gets the modality breakdown. */
        versus: z.array(z.string().min(1)).default([]),
        /**
         * The group field whose values are clusters of related questions: intervals, paired
         * differences and tests resample whole clusters and report the design effect. Default: the
         * LongHisDoc volume (`doc_id`) where records carry one, else none; `none` for questions.
         */
        cluster: z.string().min(1).optional(),
        /** How a question's repeated samples become its score (`samples` > 1): mean (default), median, mode (majority), max (pass@n-like). */
        reducer: ReducerSchema.optional(),
        /**
         * An answer that is empty after the endpoint's retries: `zero` scores it by the
         * benchmark's rule (0) and counts it as empty; `failed` records it as a failure, excluded
         * from means (and answered again on resume). Either way the "empty" column counts it.
         */
        emptyAnswer: z.enum(['zero', 'failed']).default('zero'),
      })
      .strict()
      .default({ compat: 'hisrag', textMetrics: true, bootstrapResamples: 1000, baseline: 'closed-book', versus: [], emptyAnswer: 'zero' }),
    /** Why retrieval helps or hurts: help/hurt decomposition and claim-level diagnostics after scoring (`hisrag diagnose` does the same on any run directory). */
    diagnostics: DiagnosticsConfigSchema.optional(),
    execution: z
      .object({
        /** Items in flight at once (generators also bound their own endpoint concurrency). */
        concurrency: positiveInt().default(4),
        /** Stop after this many failed items (0 = never). */
        maxFailures: z.number().int().nonnegative().default(0),
      })
      .strict()
      .default({ concurrency: 4, maxFailures: 0 }),
  })
  .strict()
  .refine((c) => Boolean(c.benchmarks) !== Boolean(c.benchmark), {
    error: 'give either `benchmark` or `benchmarks` (exactly one)',
  });

export type ExperimentConfig = z.infer<typeof ExperimentConfigSchema>;
export type RetrieverEntry = z.infer<typeof RetrieverEntrySchema>;
export type ModelEntry = z.infer<typeof ModelEntrySchema>;
export type ModelPrice = z.infer<typeof PriceSchema>;
