import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { prepareArtefacts } from '../../src/app/prepare.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { figureProblems } from '../helpers/figureLines.js';
import { studyFactorsArbitrary, writeSharedPrepareConfig, type StudyFactors } from '../helpers/studyFactors.js';
import { deltaProblems, intervalProblems } from '../helpers/studyInvariants.js';
import { runStudy } from '../helpers/studyRun.js';
import { surfaceProblems } from '../helpers/surfaceNumbers.js';

// 50 configs by default; HISRAG_PROPERTY_RUNS=1000 for a long run, HISRAG_PROPERTY_SEED to replay another draw.
const RUNS = Number(process.env.HISRAG_PROPERTY_RUNS ?? 50);
const SEED = Number(process.env.HISRAG_PROPERTY_SEED ?? 20261207);

/** The studies of issue 53, run first on every draw: the zigzag sweep, and the relabelled baseline. */
const ISSUE_EXAMPLES: StudyFactors[] = [
  { retrievers: ['bm25', 'dense'], chunkings: [40, 160], depthKind: 'both', methods: ['single'], models: 1, samples: 1, baseline: 'plain', labels: 'none' },
  { retrievers: ['bm25'], chunkings: [40], depthKind: 'k', methods: ['single'], models: 1, samples: 1, baseline: 'relabelled', labels: 'none' },
];

/** Everything wrong with one study's outputs; a refusal is right only where the baseline is relabelled (exit 2 before any call). */
async function studyProblems(factors: StudyFactors, shared: string, root: string, times: number[]): Promise<string[]> {
  const started = performance.now();
  const outcome = await runStudy(factors, shared, root, SEED);
  times.push(performance.now() - started);
  if ('refused' in outcome) return factors.baseline === 'relabelled' ? [] : [`refused a study it should run: ${outcome.refused.message}`];
  const { summary, records, figures, surfaces } = outcome;
  return [
    ...figures.flatMap(({ name, spec }) => figureProblems(name, spec, summary)),
    ...deltaProblems(summary, surfaces.terminal),
    ...intervalProblems(summary, records),
    ...surfaceProblems(summary, surfaces),
  ];
}

describe(`a study's figures, tables and exports agree whatever it combines (${RUNS} configs, seed ${SEED})`, () => {
  let root: string;
  let shared: string;
  const times: number[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-property-'));
    shared = join(root, 'shared');
    // Built once, read by every study: the fixture model, a corpus per chunking and its dense and BM25 indexes.
    mkdirSync(shared);
    await prepareArtefacts(await loadExperimentConfig(writeSharedPrepareConfig(shared)), { log: () => {}, progress: false, frozen: false });
  });

  afterAll(() => {
    closeResponseCaches();
    if (times.length) {
      const sorted = [...times].sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      console.log(`property test: ${times.length} studies run (seed ${SEED}); per study ${mean.toFixed(0)} ms mean, ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms median, ${sorted.at(-1)!.toFixed(0)} ms max`);
    }
    rmSync(root, { recursive: true, force: true });
  });

  it(`every figure line is one retriever × chunking × method × model × depth kind, every number is summary.json's, every condition has its Δ (${RUNS} configs, seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(studyFactorsArbitrary, async (factors) => {
        const problems = await studyProblems(factors, shared, root, times);
        if (problems.length) throw new Error(`${problems.length} problems:\n${problems.slice(0, 12).join('\n')}${problems.length > 12 ? `\n… ${problems.length - 12} more` : ''}`);
      }),
      { numRuns: RUNS, seed: SEED, examples: ISSUE_EXAMPLES.map((e) => [e]) },
    );
  }, RUNS * 20_000 + 600_000);
});
