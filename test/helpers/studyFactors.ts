import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { REPO_ROOT } from './runCli.js';

/**
 * The factors a study combines, as the property test draws them: each value is one choice a user
 * makes in an experiment file. `studyConfig` writes the file; the artefacts (the fixture model, the
 * corpora of every chunking and their indexes) are built once by `prepareSharedArtefacts` and read by
 * every config.
 */
export interface StudyFactors {
  retrievers: Array<'bm25' | 'dense' | 'hybrid'>;
  /** Chunking points (maxSize in characters) of the one swept corpus. */
  chunkings: number[];
  depthKind: 'k' | 'budgets' | 'both';
  methods: Array<'single' | 'iterative'>;
  models: 1 | 2;
  samples: 1 | 2;
  /** `relabelled`: `{ name: closed-book, label: 闭卷 }` instead of the plain `closed-book`. */
  baseline: 'plain' | 'relabelled';
  labels: 'none' | 'synthetic' | 'person' | 'both';
}

export const CHUNKINGS = [40, 80, 160] as const;
export const DEPTHS_K = [1, 3] as const;
/** Budgets in tokens: apart from every k, so a point's x tells its depth kind. */
export const BUDGETS = [90, 250] as const;
/** The questions of the demo benchmark a study asks (a few: each config must run in well under a second). */
export const QUESTIONS = 5;
export const RELABELLED_BASELINE = '闭卷';
export const MODEL_LABELS = ['ext-a', 'ext-b'] as const;

/** At most this many retriever × chunking pairs in one study: each pair is a retriever of the grid, and a config must cost about a second. */
export const MAX_RETRIEVER_CHUNKINGS = 4;

const subsetOf = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 });

/**
 * Every combination of the factors with retrievers × chunkings up to `MAX_RETRIEVER_CHUNKINGS` (three
 * chunkings with one retriever, two with two, one with three); fast-check shrinks towards the first
 * value of each factor and shorter lists.
 */
export const studyFactorsArbitrary: fc.Arbitrary<StudyFactors> = fc
  .record({
    retrievers: subsetOf(['bm25', 'dense', 'hybrid'] as const),
    chunkings: subsetOf(CHUNKINGS),
    depthKind: fc.constantFrom('k' as const, 'budgets' as const, 'both' as const),
    methods: subsetOf(['single', 'iterative'] as const),
    models: fc.constantFrom(1 as const, 2 as const),
    samples: fc.constantFrom(1 as const, 2 as const),
    baseline: fc.constantFrom('plain' as const, 'relabelled' as const),
    labels: fc.constantFrom('none' as const, 'synthetic' as const, 'person' as const, 'both' as const),
  })
  .filter((f) => f.retrievers.length * f.chunkings.length <= MAX_RETRIEVER_CHUNKINGS);

/** Where the shared artefacts are, under one folder. */
export function sharedPaths(dir: string) {
  return { model: join(dir, 'model'), corpus: join(dir, 'corpus'), dense: join(dir, 'dense'), bm25: join(dir, 'bm25'), benchmark: join(dir, 'benchmark.json') };
}

/** The `prepare:` section for the given chunking points (the corpus is swept: one corpus and index pair per point). */
function prepareSection(shared: string, chunkings: readonly number[]) {
  const paths = sharedPaths(shared);
  return {
    fixtureModel: { out: paths.model, seed: 42, dim: 32 },
    corpora: [
      {
        name: 'zhwiki',
        builder: { name: 'wikipedia-dump', input: join(REPO_ROOT, 'corpora', 'sources', 'demo-zhwiki.xml'), workers: 0 },
        out: paths.corpus,
        chunking: { maxSize: [...chunkings], unit: 'chars', overlap: 0 },
      },
    ],
    indexes: [
      { out: paths.dense, corpus: paths.corpus, retriever: 'exact', embedder: { name: 'transformers', model: paths.model } },
      { out: paths.bm25, corpus: paths.corpus, retriever: 'bm25' },
    ],
  };
}

/**
 * Writes the benchmark (the first questions of the demo's) and a config that prepares every
 * chunking, and returns that config's path: running its `prepare` once builds what every study reads.
 */
export function writeSharedPrepareConfig(shared: string): string {
  const paths = sharedPaths(shared);
  const questions = JSON.parse(readFileSync(join(REPO_ROOT, 'experiments', 'data', 'demo-prohist.json'), 'utf8')) as unknown[];
  writeFileSync(paths.benchmark, JSON.stringify(questions.slice(0, QUESTIONS)));
  return writeConfig(join(shared, 'prepare.yaml'), {
    name: 'shared',
    output: join(shared, 'runs'),
    prepare: prepareSection(shared, CHUNKINGS),
    benchmark: { name: 'prohist', file: paths.benchmark },
    retrieval: { retriever: { name: 'bm25', index: paths.bm25 }, k: [1] },
    strategies: ['closed-book'],
    models: [{ name: 'extractive' }],
    judge: { name: 'lexical' },
  });
}

function writeConfig(file: string, config: Record<string, unknown>): string {
  writeFileSync(file, stringify(config));
  return file;
}

/** The label files of a study (`labels:`): a synthetic stand-in's, a person's, or both. */
export function studyAnnotators(factors: StudyFactors, dir: string): Array<{ file: string; annotator: string; synthetic: boolean }> {
  const synthetic = { file: join(dir, 'labels-stand-in.jsonl'), annotator: 'stand-in', synthetic: true };
  const person = { file: join(dir, 'labels-wang.jsonl'), annotator: 'wang', synthetic: false };
  return factors.labels === 'none' ? [] : factors.labels === 'synthetic' ? [synthetic] : factors.labels === 'person' ? [person] : [synthetic, person];
}

/** The experiment file of one drawn study, written into `dir` (its runs under `dir/runs`); returns its path. */
export function studyConfig(factors: StudyFactors, shared: string, dir: string, seed: number, labels: ReturnType<typeof studyAnnotators> = []): string {
  const paths = sharedPaths(shared);
  const retrieverSpec = (name: StudyFactors['retrievers'][number]) =>
    name === 'bm25'
      ? { label: 'bm25', name: 'bm25', index: paths.bm25 }
      : name === 'dense'
        ? { label: 'dense', name: 'exact', index: paths.dense }
        : { label: 'hybrid', name: 'hybrid', retrievers: [{ name: 'exact', index: paths.dense }, { name: 'bm25', index: paths.bm25 }] };
  const methods = factors.methods.map((m) => (m === 'single' ? 'rag' : { name: 'iter-retgen', rounds: 2 }));
  const closedBook = factors.baseline === 'plain' ? 'closed-book' : { name: 'closed-book', label: RELABELLED_BASELINE };
  return writeConfig(join(dir, 'study.yaml'), {
    name: 'study',
    seed,
    output: join(dir, 'runs'),
    prepare: prepareSection(shared, factors.chunkings),
    benchmark: { name: 'prohist', file: paths.benchmark },
    retrieval: {
      retrievers: factors.retrievers.map(retrieverSpec),
      ...(factors.depthKind !== 'budgets' ? { k: [...DEPTHS_K] } : {}),
      ...(factors.depthKind !== 'k' ? { contextTokens: [...BUDGETS] } : {}),
    },
    strategies: [closedBook, ...methods],
    ...(factors.samples > 1 ? { samples: factors.samples } : {}),
    models: MODEL_LABELS.slice(0, factors.models).map((label, i) => ({ name: 'extractive', label, minOverlap: 1 + i })),
    judge: { name: 'lexical' },
    extractor: { name: 'rules' },
    ...(labels.length ? { labels } : {}),
    scoring: { compat: 'hisrag', bootstrapResamples: 200 },
    execution: { concurrency: 4 },
  });
}
