import { z } from 'zod';
import { REDUCERS } from '../statistics/samples.js';
import { IndexKindSchema } from '../runFiles/indexManifest.js';
import { builtFromRegistries, labelSchema, nonEmptyString, positiveInt } from '../registry.js';
import { DiagnosticsConfigSchema } from './diagnostics.js';
import { expandChunkingSweeps, isObject, sweptCorpusSchema, type Raw } from './chunkingSweep.js';
import {
  STAGE_REGISTRIES,
  BenchmarkSpecSchema,
  ContextBudgetsSchema,
  DepthsSchema,
  EmbedderSpecSchema,
  ExtractorSpecSchema,
  GeneratorSpecSchema,
  JudgeSpecSchema,
  RetrieverSpecSchema,
  StrategyEntrySchema,
} from './components.js';

/** The condition paired differences are taken against when `scoring.baseline` is not given. */
export const DEFAULT_BASELINE = 'closed-book';

/** How a question's repeated samples are reduced to one score (scoring.reducer). */
export const ReducerSchema = z.enum(REDUCERS);

const retrievalSchema = () =>
  z
    .object({
      k: DepthsSchema.optional().describe('Retrieval depths; every strategy that uses retrieval runs once per retriever × k (an entry\'s own `k:` overrides it; without either, a strategy\'s default depths apply)'),
      contextTokens: ContextBudgetsSchema.optional().describe('Depths as context budgets in tokens: every retrieving strategy also runs once per retriever × budget, retrieving in rank order until the budget is filled (an entry\'s own `contextTokens:` or `k:` overrides it)'),
      retrievers: z.array(RetrieverSpecSchema()).min(1, { error: 'expected at least one retriever' }).describe('the retrievers of the grid (`retriever: {…}` is read as a list of one)'),
      /**
       * `corpus`: rank the whole index. `document`: rank only the chunks of the question's own
       * document (LongHisDoc's setting: the pages of one book).
       */
      scope: z.enum(['corpus', 'document']).default('corpus').describe('`corpus`: rank the whole index'),
    })
    .strict();

/** What the endpoint charges, in any one currency per million tokens: gives each answer a price. */
const PriceSchema = z
  .object({
    inputPerMillion: z.number().nonnegative(),
    outputPerMillion: z.number().nonnegative(),
    batchDiscount: z.number().gt(0, { error: 'expected a share of the live price in (0, 1]' }).max(1, { error: 'expected a share of the live price in (0, 1]' }).default(0.5).describe('The share of the live price a batch API charges (`batch: true` on the model\'s spec): OpenAI\'s and DashScope\'s 50%'),
  })
  .strict();

/** A model of the grid: a generator spec, with its label in tables, its price and its repeated samples. */
function modelEntrySchema() {
  return GeneratorSpecSchema({
    label: labelSchema().optional().describe('name of the model in tables (default: the model name)'),
    price: PriceSchema.optional().describe("what the endpoint charges per million tokens: each answer's price"),
    samples: positiveInt().optional().describe("answers per question and condition (default: the run's samples, else 1)"),
    tokenizer: z.string().min(1).optional().describe("the model's own tokenizer: a local directory with tokenizer.json (as transformers.js loads it), or `tiktoken:<encoding>` for an OpenAI encoding (`tiktoken:o200k_base`, `tiktoken:cl100k_base`); context budgets (`contextTokens`), every record's `context.tokens` and prompt-token estimates count in its tokens (default: the CJK estimate)"),
  });
}

const FixtureModelSchema = z
  .object({
    out: nonEmptyString('an output directory'),
    seed: z.number().int().default(42).describe('Seed of the random retrievers and the bootstrap of every interval'),
    dim: positiveInt().default(64),
  })
  .strict();

const indexBuildSchema = () => z
  .object({
    out: nonEmptyString('an index directory'),
    corpus: nonEmptyString('a corpus directory'),
    retriever: IndexKindSchema,
    embedder: EmbedderSpecSchema().optional(),
  })
  .catchall(z.unknown());

/**
 * An experiment: benchmarks × retrievers × depths × prompting strategies × models, scored by
 * one shared scorer. Every component is `{ name, ...params }` picked from its stage's registry,
 * and its params are checked here, in the same pass (see components.ts). Paths are relative to
 * the working directory the run is started from.
 */
function buildExperimentConfigSchema() {
  return z
  .object({
    name: z.string().regex(/^[\w.-]+$/, { error: 'expected letters, digits, ".", "_" or "-"' }).describe('Name of the experiment: its run folders are named after it'),
    description: z.string().optional().describe('Free text, shown with the run'),
    seed: z.number().int().default(42).describe('Seed of the random retrievers and the bootstrap of every interval'),
    output: z.string().default('experiments/runs').describe('Parent folder of run directories'),
    prepare: z
      .object({
        fixtureModel: FixtureModelSchema.optional().describe('The generated embedder (offline fixture) that offline demos index and retrieve with'),
        rerankerModel: FixtureModelSchema.optional().describe('The generated cross-encoder (query-coverage fixture) that offline reranking demos use'),
        clipModel: FixtureModelSchema.extend({ imageSize: positiveInt().optional() }).strict().optional().describe('The generated CLIP-style dual encoder (text ↔ page image) that offline image-retrieval demos use'),
        causalLmModel: FixtureModelSchema.optional().describe('The generated causal LM (GPT-2-shaped bigram stand-in) that offline context-compression demos score tokens with'),
        corpora: z.array(sweptCorpusSchema()).optional().describe('Corpora built before the run when missing or stale'),
        indexes: z.array(indexBuildSchema()).optional().describe('Indexes built before the run when missing or stale'),
      })
      .strict()
      .optional()
      .describe('Artefacts built before the run when missing or stale (idempotent)'),
    benchmarks: z.array(BenchmarkSpecSchema()).min(1, { error: 'expected at least one benchmark' }).describe('the benchmarks whose questions are asked (`benchmark: {…}` is read as a list of one)'),
    retrieval: retrievalSchema().optional().describe('How passages are retrieved: retrievers, depths, scope (omit for closed-book only)'),
    strategies: z.array(StrategyEntrySchema()).min(1, { error: 'expected at least one strategy' }).optional().describe('Prompting strategies and RAG methods, by name or `{ name, …params, label, k, contextTokens }` (required with `models:`; a retrieval-only study has none)'),
    models: z.array(modelEntrySchema()).min(1, { error: 'expected at least one model' }).optional().describe('The models answering every question under every condition. Omitted: a retrieval-only study — retrievers × depths (`retrieval.k`), scored by recall, nDCG, MRR and the span metrics with intervals and paired comparisons between retrievers, no generator called'),
    samples: positiveInt().optional().describe('Answers per question and condition for every model without its own `samples` (default 1): repeated samples of a model at temperature > 0, reduced per question by `scoring.reducer`'),
    judge: JudgeSpecSchema().optional().describe('Scores rubric answers (default `lexical`, offline)'),
    extractor: ExtractorSpecSchema().optional().describe('Pulls the final answer out of a reply before scoring (MCQ letters, short answers)'),
    scoring: z
      .object({
        compat: z.enum(['hisrag', 'reference']).default('hisrag').describe('`reference` reproduces the published implementation\'s rubric-parsing quirk'),
        textMetrics: z.boolean().default(true).describe('Also score answers by text overlap with the reference (ROUGE-L, BLEU, …)'),
        bertScoreModel: z.string().min(1).optional().describe('Encoder (local directory or model id) whose token vectors BERTScore matches; omit for no BERTScore'),
        bootstrapResamples: positiveInt().default(1000).describe('Bootstrap resamples of every interval'),
        baseline: z.string().min(1).default(DEFAULT_BASELINE).describe('Condition every paired difference is taken against: a condition of the grid (`rag@10`), or a strategy that runs as one condition under another label (`closed-book` labelled `闭卷`); any other name is refused before the run. Default: closed-book, else the grid\'s first condition'),
        versus: z.array(z.string().min(1)).default([]).describe('Further conditions every condition is also compared with (e.g. OCR input beside closed-book); an image-input condition against a text-only one gets the modality breakdown'),
        // Default: the LongHisDoc volume (`doc_id`) where records carry one, else none; `none` for questions.
        cluster: z.string().min(1).optional().describe('The group field whose values are clusters of related questions: intervals, paired differences and tests resample whole clusters and report the design effect'),
        reducer: ReducerSchema.optional().describe('How a question\'s repeated samples become its score (`samples` > 1): mean (default), median, mode (majority), max (pass@n-like)'),
        // Either way the "empty" column counts it.
        emptyAnswer: z.enum(['zero', 'failed']).default('zero').describe('An answer that is empty after the endpoint\'s retries: `zero` scores it by the benchmark\'s rule (0) and counts it as empty; `failed` records it as a failure, excluded from means (and answered again on resume)'),
      })
      .strict()
      .default({ compat: 'hisrag', textMetrics: true, bootstrapResamples: 1000, baseline: DEFAULT_BASELINE, versus: [], emptyAnswer: 'zero' })
      .describe('How answers are scored and compared'),
    labels: z
      .array(
        z
          .object({
            file: z.string().min(1).describe('A .jsonl (key, verdicts or correct) or .csv (key,item,mark) label file, as `hisrag annotate --import` reads'),
            annotator: z.string().min(1).describe('Whose labels they are: labels/<annotator>.jsonl'),
            synthetic: z.boolean().default(false).describe('Labels not made by a person (a demo\'s stand-in): every surface says so'),
          })
          .strict(),
      )
      .optional()
      .describe('Label files imported into labels/ after scoring: the summary checks the judge against them and corrects every mean and Δ (PPI++)'),
    diagnostics: DiagnosticsConfigSchema.optional().describe('Why retrieval helps or hurts: help/hurt decomposition and claim-level diagnostics after scoring (`hisrag diagnose` does the same on any run directory)'),
    execution: z
      .object({
        concurrency: positiveInt().default(4).describe('Items in flight at once (generators also bound their own endpoint concurrency)'),
        maxFailures: z.number().int().nonnegative().default(0).describe('Stop after this many failed items (0 = never)'),
      })
      .strict()
      .default({ concurrency: 4, maxFailures: 0 })
      .describe('How many items run at once, and when a run stops'),
  })
  .strict()
  .superRefine((config, context) => {
    if (config.models && !config.strategies) context.addIssue({ code: 'custom', path: ['strategies'], message: 'expected at least one strategy (a run with `models:` answers with them)' });
    if (!config.models && !config.retrieval?.k) context.addIssue({ code: 'custom', path: ['retrieval', 'k'], message: 'a retrieval-only study (no `models:`) needs retrievers and depths: set `retrieval.retrievers` and `retrieval.k`' });
  });
}

/** The singular shorthands and the one (plural) form each is read as. */
export const SHORTHANDS: readonly { at: readonly string[]; singular: string; plural: string }[] = [
  { at: [], singular: 'benchmark', plural: 'benchmarks' },
  { at: ['retrieval'], singular: 'retriever', plural: 'retrievers' },
];

/**
 * The one step that reads a singular shorthand (`benchmark: {…}`, `retrieval.retriever: {…}`) as
 * the list of one it stands for, before the config is checked: every reader downstream sees only
 * `benchmarks` and `retrieval.retrievers`. Stored configs of earlier runs wrote either form.
 * Both forms at once are left in place for the check to refuse.
 */
export function withPluralForms(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Raw = { ...value };
  for (const { at, singular, plural } of SHORTHANDS) {
    const parent = at.length === 0 ? out : out[at[0]!];
    if (!isObject(parent) || !(singular in parent) || plural in parent) continue;
    const { [singular]: one, ...rest } = parent;
    if (at.length === 0) {
      delete out[singular];
      out[plural] = [one];
    } else out[at[0]!] = { ...rest, [plural]: [one] };
  }
  return out;
}

/**
 * The experiment file's one schema, built from the registries as they are now (rebuilt when an
 * implementation was registered since: a plugin retriever registered by a script, say): what the file
 * says, the singular shorthands read as lists and chunking sweeps as written.
 */
export const experimentFileSchema = builtFromRegistries(STAGE_REGISTRIES, () => z.preprocess(withPluralForms, buildExperimentConfigSchema()));

/** The checked config with its chunking sweeps expanded into their grid: what every reader downstream sees. */
export const experimentConfigSchema = () => experimentFileSchema().transform((config) => expandChunkingSweeps(config));

type ExperimentFile = z.output<ReturnType<typeof buildExperimentConfigSchema>>;
export type ExperimentConfig = z.output<ReturnType<typeof experimentConfigSchema>>;
export type ModelPrice = z.infer<typeof PriceSchema>;

/** The written spec, with the named fields as the schema read them (the grid's own fields: label, price …). */
function asWritten(written: unknown, parsed: unknown, gridFields: readonly string[]): unknown {
  if (!isObject(written) || !isObject(parsed)) return parsed;
  const out: Raw = structuredClone(written);
  for (const key of gridFields) if (parsed[key] !== undefined) out[key] = parsed[key];
  return out;
}

/** Where a problem found in the normalised config is in the file as written: `benchmarks[0].x` is `benchmark.x` in a file that wrote the shorthand. */
export function writtenPath(written: unknown, path: readonly PropertyKey[]): PropertyKey[] {
  for (const { at, singular, plural } of SHORTHANDS) {
    const parent = at.length === 0 ? written : isObject(written) ? written[at[0]!] : undefined;
    const usedShorthand = isObject(parent) && singular in parent && !(plural in parent);
    const prefix = [...at, plural, 0];
    if (usedShorthand && prefix.every((key, i) => path[i] === key)) return [...at, singular, ...path.slice(prefix.length)];
  }
  return [...path];
}

/**
 * The checked config, its component specs as the file wrote them: the schema has checked every
 * parameter, but fills its defaults only when the registry builds the component. So what a run
 * records of a spec (config.json, the summary's methods) is what its author wrote, and a stored
 * config reads back the same.
 */
export function specsAsWritten(writtenAnyForm: unknown, parsed: ExperimentFile): ExperimentFile {
  const written = withPluralForms(writtenAnyForm);
  if (!isObject(written)) return parsed;
  const out = parsed as Raw;
  const each = (key: string, holder: Raw, from: Raw | undefined, gridFields: readonly string[] = []) => {
    const value = from?.[key];
    const current = holder[key];
    if (Array.isArray(current) && Array.isArray(value)) holder[key] = current.map((p: unknown, i: number) => asWritten(value[i], p, gridFields));
    else if (holder[key] !== undefined) holder[key] = asWritten(value, holder[key], gridFields);
  };
  each('benchmarks', out, written);
  each('judge', out, written);
  each('extractor', out, written);
  each('models', out, written, ['label', 'price', 'samples']);
  each('strategies', out, written, ['label', 'k', 'contextTokens']);
  if (isObject(out.retrieval)) {
    each('retrievers', out.retrieval, isObject(written.retrieval) ? written.retrieval : undefined);
  }
  if (isObject(out.prepare) && isObject(written.prepare)) {
    each('corpora', out.prepare, written.prepare);
    const indexes: unknown[] = Array.isArray(written.prepare.indexes) ? written.prepare.indexes : [];
    for (const [i, index] of ((out.prepare.indexes as Raw[] | undefined) ?? []).entries()) each('embedder', index, indexes[i] as Raw | undefined);
  }
  return parsed;
}
