import { z } from 'zod';
import { componentUnion, INPUT_JSON_SCHEMA, labelSchema, listingOf, positiveInt, unknownNameMessage, type RegistryView, type Shape } from '../registry.js';
import { benchmarks } from '../benchmarks/registry.js';
import { embedders } from '../embedding/registry.js';
import { generators } from '../generation/registry.js';
import { methods } from '../methods/registry.js';
import { strategies } from '../prompting/registry.js';
import { retrievers } from '../retrieval/registry.js';
import { rerankers } from '../rerank/registry.js';
import { corpusBuilders } from '../corpus/registry.js';
import { extractors } from '../scoring/extractors/registry.js';
import { judges } from '../scoring/judges/registry.js';

// Each stage's component spec is one discriminated union on `name` built from its registry, so a
// single pass of the experiment schema checks every parameter and the JSON Schema lists them all.

/** Where each registry's components are named in an experiment file (the parameter reference's sections). */
export const COMPONENT_STAGES: { field: string; registries: RegistryView[] }[] = [
  { field: '`benchmarks[]`', registries: [benchmarks] },
  { field: '`retrieval.retrievers[]`', registries: [retrievers] },
  { field: '`retrieval.retrievers[].rerank`', registries: [rerankers] },
  { field: '`strategies[]`', registries: [strategies, methods] },
  { field: '`models[]`', registries: [generators] },
  { field: '`judge`', registries: [judges] },
  { field: '`extractor`', registries: [extractors] },
  { field: '`prepare.indexes[].embedder`', registries: [embedders] },
  { field: '`prepare.corpora[].builder`', registries: [corpusBuilders] },
];

/** The registries the experiment schema is built from. */
export const STAGE_REGISTRIES = COMPONENT_STAGES.flatMap((stage) => stage.registries);

/** Nested component specs inside params (an llm judge's `generator`, crag's `evaluator`), checked by their own stage's union. */
const generatorSpec = () => componentUnion([generators], 'generator');
const NESTED = { generator: generatorSpec, evaluator: () => componentUnion([rerankers], 'reranker', {}, { generator: generatorSpec }) };

/** A reranker spec inside a retriever's `rerank:` section, with what the rerank wrapper itself reads. */
const rerankSpecSchema = () =>
  componentUnion(
    [rerankers],
    'reranker',
    {
      candidates: positiveInt().optional().describe('first-stage candidates reranked per question (default 100; at least the deepest k)'),
      passage: z.enum(['title+text', 'text']).optional().describe('passage text given to the reranker (default title+text)'),
    },
    NESTED,
  );

/** A retriever of the grid: `label` names it in condition names (`dense/rag@10`); `rerank` reorders its candidates. */
export const RetrieverSpecSchema = () =>
  componentUnion([retrievers], 'retriever', {
    label: labelSchema()
      .optional()
      .describe('names the retriever in condition names (dense/rag@10; default: its name)'),
    rerank: rerankSpecSchema().optional().describe("a reranker applied to the retriever's candidates (reranking.md)"),
  });

export const EmbedderSpecSchema = () => componentUnion([embedders], 'embedder');
export const BenchmarkSpecSchema = () => componentUnion([benchmarks], 'benchmark');
export const JudgeSpecSchema = () => componentUnion([judges], 'judge', {}, NESTED);
export const ExtractorSpecSchema = () => componentUnion([extractors], 'extractor', {}, NESTED);
export const GeneratorSpecSchema = <Extra extends Shape>(extra: Extra) => componentUnion([generators], 'generator', extra);

/** Retrieval depths: one or a list (one depth is read as a list of one). */
export const DepthsSchema = z
  .preprocess(
    (v) => (typeof v === 'number' ? [v] : v),
    z.array(positiveInt(), { error: 'expected a depth or a list of depths' }).min(1, { error: 'expected at least one depth' }),
  )
  .meta({
    [INPUT_JSON_SCHEMA]: {
      anyOf: [
        { type: 'integer', exclusiveMinimum: 0 },
        { type: 'array', items: { type: 'integer', exclusiveMinimum: 0 }, minItems: 1 },
      ],
    },
  });

/** Context budgets in tokens as depths (`contextTokens: [500, 1000, 2000]`): one or a list, like `k`. */
export const ContextBudgetsSchema = DepthsSchema;

/** A `strategies:` entry: a prompting strategy or a RAG method, by name or `{ name, …params, label, k, contextTokens }`. */
export function StrategyEntrySchema() {
  const names = [...strategies.names(), ...methods.names()].sort();
  const listing = listingOf([strategies, methods]);
  // A bare name is `{ name }`: an unknown one is reported at `.name`, as for the long form.
  const bareName = z
    .string()
    .superRefine((name, ctx) => {
      if (!names.includes(name)) ctx.addIssue({ code: 'custom', path: ['name'], message: unknownNameMessage({ name }, 'strategy or method', names, listing) });
    })
    .meta({ [INPUT_JSON_SCHEMA]: { type: 'string', enum: names } });
  return z.union([
    bareName,
    componentUnion([strategies, methods], 'strategy or method', {
      label: labelSchema().optional().describe('names the entry in condition names (default: its name)'),
      k: DepthsSchema.optional().describe('depths of this entry alone (overrides retrieval.k)'),
      contextTokens: ContextBudgetsSchema.optional().describe('depths of this entry alone as context budgets in tokens (overrides retrieval.contextTokens; configuration.md)'),
    }, NESTED),
  ]);
}
