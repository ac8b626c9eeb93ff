import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { prepareArtefacts } from '../../src/app/prepare.js';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import { figureProblems } from '../helpers/figureLines.js';
import { RELABELLED_BASELINE, studyFactorsArbitrary, writeSharedPrepareConfig, type StudyFactors } from '../helpers/studyFactors.js';
import { deltaProblems, intervalProblems } from '../helpers/studyInvariants.js';
import { runStudy } from '../helpers/studyRun.js';
import { surfaceProblems } from '../helpers/surfaceNumbers.js';

// 50 configs by default; HISRAG_PROPERTY_RUNS=1000 for a long run, HISRAG_PROPERTY_SEED to replay another draw.
function wholeNumberFrom(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: expected a whole number from 1, got "${process.env[name]}"`);
  return value;
}
const RUNS = wholeNumberFrom('HISRAG_PROPERTY_RUNS', 50);
const SEED = wholeNumberFrom('HISRAG_PROPERTY_SEED', 20261207);

/** The studies of issue 53, run first on every draw: the zigzag sweep, and the relabelled baseline. */
const ISSUE_EXAMPLES: StudyFactors[] = [
  { retrievers: ['bm25', 'dense'], chunkings: [40, 160], depthKind: 'both', methods: ['single'], models: 1, samples: 1, baseline: 'plain', labels: 'none' },
  { retrievers: ['bm25'], chunkings: [40], depthKind: 'k', methods: ['single'], models: 1, samples: 1, baseline: 'relabelled', labels: 'none' },
];

/** What one study took: wall-clock ms, and CPU ms of this process (what an idle machine would take, near enough, on a busy one). */
interface StudyTime {
  wall: number;
  cpu: number;
}

const timeLine = (times: StudyTime[], key: keyof StudyTime) => {
  const sorted = times.map((t) => t[key]).sort((a, b) => a - b);
  return `${key} ${(sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(0)} ms mean, ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} median, ${sorted.at(-1)!.toFixed(0)} max`;
};

/** Everything wrong with one study's outputs; a refusal is right only where the baseline is relabelled (exit 2 before any call). */
async function studyProblems(factors: StudyFactors, shared: string, root: string, times: StudyTime[]): Promise<string[]> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const outcome = await runStudy(factors, shared, root, SEED);
  const used = process.cpuUsage(cpu);
  times.push({ wall: performance.now() - started, cpu: (used.user + used.system) / 1000 });
  if ('refused' in outcome) {
    const { refused, answers } = outcome;
    if (factors.baseline !== 'relabelled') return [`refused a study it should run: ${refused.message}`];
    // Refusing a relabelled baseline is right before any call, naming the conditions the run has.
    return [...(answers ? [`refused after ${answers} answers: ${refused.message}`] : []), ...(refused.message.includes(RELABELLED_BASELINE) ? [] : [`the refusal does not name the run's conditions (${RELABELLED_BASELINE}): ${refused.message}`])];
  }
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
  const times: StudyTime[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-property-'));
    shared = join(root, 'shared');
    // Built once, read by every study: the fixture model, a corpus per chunking and its dense and BM25 indexes.
    mkdirSync(shared);
    await prepareArtefacts(await loadExperimentConfig(writeSharedPrepareConfig(shared)), { log: () => {}, progress: false, frozen: false });
  });

  afterAll(() => {
    closeResponseCaches();
    if (times.length) console.log(`property test: ${times.length} studies run (seed ${SEED}, shrinking included); per study: ${timeLine(times, 'wall')}; ${timeLine(times, 'cpu')}`);
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
