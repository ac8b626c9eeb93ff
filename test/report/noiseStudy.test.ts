import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import type { RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { validateComponents } from '../../src/experiment/stages.js';
import type { RunSummary } from '../../src/runFiles/summary.js';
import { summarizeRun } from '../../src/analysis/summary.js';
import { seedFor } from '../../src/statistics/run.js';
import { noiseStudy, type NoiseStudy } from '../../src/analysis/noiseStudy.js';
import { NOISE_STUDY_SECTION_ID, noiseStudyHtml } from '../../src/report/noiseStudy.js';
import { summarizeScores } from '../../src/statistics/bootstrap.js';
import { makeRecord, scored } from '../experiment/fixtures.js';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';
import { axisLabels } from '../helpers/figureAxes.js';

const RESAMPLES = 300;
const SEED = 7;

const manifest = {
  components: {
    retrievers: {
      'gold-first': { name: 'oracle+noise', index: 'idx', noise: 'random', goldPosition: 'first', seed: 1 },
      'gold-last': { name: 'oracle+noise', index: 'idx', noise: 'random', goldPosition: 'last', seed: 1 },
      bm25: { name: 'bm25', index: 'idx' },
    },
  },
};

const scoreOf = (item: number, condition: string) => (item * 17 + condition.length * 7) % 101;

/** An oracle+noise answer: `gold` gold chunks (score 1) padded to k with noise (score 0), gold first or last. */
function oracleRecord(item: number, retriever: 'gold-first' | 'gold-last', k: number, gold: number, model = 'm'): RunItemRecord {
  const goldChunks = Array.from({ length: Math.min(gold, k) }, (_, j) => ({ id: `g${item}-${j}`, score: 1 }));
  const noise = Array.from({ length: k - goldChunks.length }, (_, j) => ({ id: `n${item}-${j}`, score: 0 }));
  const list = retriever === 'gold-first' ? [...goldChunks, ...noise] : [...noise, ...goldChunks];
  const condition = `${retriever}/rag@${k}`;
  return makeRecord({
    itemId: String(item),
    condition,
    model,
    key: `${model}|${condition}|b:${item}`,
    strategy: 'rag',
    retriever,
    k,
    retrieved: list.map((c, i) => ({ ...c, rank: i + 1, title: 't', text: 'x' })),
    contextIds: list.map((c) => c.id),
    score: scored(scoreOf(item, condition)),
  });
}

function bm25Record(item: number, k: number, precision: number, model = 'm'): RunItemRecord {
  const condition = `bm25/rag@${k}`;
  return makeRecord({
    itemId: String(item),
    condition,
    model,
    key: `${model}|${condition}|b:${item}`,
    strategy: 'rag',
    retriever: 'bm25',
    k,
    retrieved: Array.from({ length: k }, (_, i) => ({ id: `b${item}-${i}`, rank: i + 1, score: 5 - i, title: 't', text: 'x' })),
    contextIds: Array.from({ length: k }, (_, i) => `b${item}-${i}`),
    retrievalMetrics: { precision, recall: 1 },
    score: scored(scoreOf(item, condition)),
  });
}

function closedBook(item: number, model = 'm'): RunItemRecord {
  return makeRecord({ itemId: String(item), condition: 'closed-book', model, key: `${model}|closed-book|b:${item}`, strategy: 'closed-book', score: scored(scoreOf(item, 'closed-book')) });
}

const CONDITIONS = ['closed-book', 'gold-first/rag@1', 'gold-first/rag@5', 'gold-last/rag@5', 'bm25/rag@5'];

/** Items 0–5 with one gold passage each; `extra` adds an item with two gold passages (6) and one with none (7). */
function run(options: { extra?: boolean; models?: string[] } = {}): { records: RunItemRecord[]; summary: RunSummary } {
  const models = options.models ?? ['m'];
  const records: RunItemRecord[] = [];
  const items = options.extra ? [0, 1, 2, 3, 4, 5, 6, 7] : [0, 1, 2, 3, 4, 5];
  for (const model of models) {
    for (const item of items) {
      const gold = item === 6 ? 2 : item === 7 ? 0 : 1;
      records.push(closedBook(item, model));
      records.push(oracleRecord(item, 'gold-first', 1, gold, model));
      records.push(oracleRecord(item, 'gold-first', 5, gold, model));
      records.push(oracleRecord(item, 'gold-last', 5, gold, model));
      records.push(bm25Record(item, 5, item % 2 ? 0.2 : 0.4, model));
    }
  }
  const summary = summarizeRun(records, { experiment: 'noise', models, conditions: CONDITIONS, baseline: 'closed-book', resamples: RESAMPLES, seed: SEED });
  return { records, summary };
}

const cellScore = (summary: RunSummary, condition: string) => {
  const { mean, ciLow, ciHigh, n } = summary.cells.find((c) => c.condition === condition)!.score;
  return { mean, ciLow, ciHigh, n };
};

describe('noiseStudy', () => {
  it('computes each answer\'s noise rate from its prompt: k = 5 with one gold passage is 0.8', () => {
    const { records, summary } = run();
    const study = noiseStudy(records, summary, manifest, { resamples: RESAMPLES, seed: SEED })!;
    expect(study.models.map((m) => m.model)).toEqual(['m']);
    const [m] = study.models;
    const first = m!.byNoiseRate.find((s) => s.retriever === 'gold-first')!;
    const last = m!.byNoiseRate.find((s) => s.retriever === 'gold-last')!;
    expect(first).toMatchObject({ label: 'gold-first', noise: 'random', goldPosition: 'first', strategy: 'rag' });
    expect(first.points.map((p) => p.x)).toEqual([0, 0.8]);
    expect(first.points.map((p) => p.conditions)).toEqual([['gold-first/rag@1'], ['gold-first/rag@5']]);
    expect(last.points.map((p) => p.x)).toEqual([0.8]);
    expect(m!.excludedNoGold).toBe(0);
    expect(m!.shortPrompts).toBe(0);
  });

  it("gives a point that is one whole condition that condition's mean and CI, as the summary has them", () => {
    const { records, summary } = run();
    const [m] = noiseStudy(records, summary, manifest, { resamples: RESAMPLES, seed: SEED })!.models;
    const first = m!.byNoiseRate.find((s) => s.retriever === 'gold-first')!;
    const at = (x: number) => first.points.find((p) => p.x === x)!;
    expect({ mean: at(0.8).mean, ciLow: at(0.8).ciLow, ciHigh: at(0.8).ciHigh, n: at(0.8).n }).toEqual(cellScore(summary, 'gold-first/rag@5'));
    expect({ mean: at(0).mean, ciLow: at(0).ciLow, ciHigh: at(0).ciHigh, n: at(0).n }).toEqual(cellScore(summary, 'gold-first/rag@1'));
    // ... which is the bootstrap of the scores taken directly, in key order, with the cell's seed.
    const values = [0, 1, 2, 3, 4, 5].map((i) => scoreOf(i, 'gold-first/rag@5'));
    const direct = summarizeScores(values, { resamples: RESAMPLES, seed: seedFor(SEED, 'm|gold-first/rag@5') });
    expect(at(0.8)).toMatchObject({ mean: direct.mean, ciLow: direct.ciLow, ciHigh: direct.ciHigh, n: 6 });
    expect(at(0.8).mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 12);
    // The closed-book reference is the baseline cell when every item has gold evidence.
    expect(m!.closedBook).toMatchObject({ label: 'closed-book', restricted: false, ...cellScore(summary, 'closed-book') });
  });

  it('places each gold position at each k > 1, with the gold passage\'s actual rank', () => {
    const { records, summary } = run();
    const [m] = noiseStudy(records, summary, manifest, { resamples: RESAMPLES, seed: SEED })!.models;
    expect(m!.byGoldPosition.map((s) => s.label)).toEqual(['k = 5']);
    const [series] = m!.byGoldPosition;
    expect(series!.points.map((p) => [p.position, p.x, p.meanGoldRank])).toEqual([
      ['first', 1, 1],
      ['last', 3, 5],
    ]);
    expect(series!.points[1]).toMatchObject(cellScore(summary, 'gold-last/rag@5'));
  });

  it('puts a real retriever at its mean 1 − precision@k', () => {
    const { records, summary } = run();
    const [m] = noiseStudy(records, summary, manifest, { resamples: RESAMPLES, seed: SEED })!.models;
    expect(m!.realistic).toHaveLength(1);
    const [bm25] = m!.realistic;
    expect(bm25!.label).toBe('bm25 (real retrieval)');
    expect(bm25!.points).toHaveLength(1);
    expect(bm25!.points[0]!.k).toBe(5);
    expect(bm25!.points[0]!.x).toBeCloseTo(0.7, 12); // precisions 0.4, 0.2, 0.4, 0.2, 0.4, 0.2
    expect(bm25!.points[0]).toMatchObject(cellScore(summary, 'bm25/rag@5'));
  });

  it('leaves items without gold evidence out, splits a condition by noise rate, and restricts the reference to the same items', () => {
    const { records, summary } = run({ extra: true });
    const [m] = noiseStudy(records, summary, manifest, { resamples: RESAMPLES, seed: SEED })!.models;
    expect(m!.excludedNoGold).toBe(3); // item 7 in the three oracle+noise conditions
    expect(m!.excludedNoGoldItems).toBe(1);
    expect(noiseStudyHtml({ bootstrap: { resamples: RESAMPLES, seed: SEED }, metric: 'rs', models: [m!] })).toContain('3 answers to 1 item without gold evidence left out');
    const first = m!.byNoiseRate.find((s) => s.retriever === 'gold-first')!;
    expect(first.points.map((p) => [p.x, p.n])).toEqual([
      [0, 7],
      [0.6, 1],
      [0.8, 6],
    ]);
    const point = first.points.find((p) => p.x === 0.8)!;
    const values = [0, 1, 2, 3, 4, 5].map((i) => scoreOf(i, 'gold-first/rag@5'));
    const direct = summarizeScores(values, { resamples: RESAMPLES, seed: seedFor(SEED, 'm|gold-first/rag@5|noise rate 0.8') });
    expect(point).toMatchObject({ mean: direct.mean, ciLow: direct.ciLow, ciHigh: direct.ciHigh, n: 6 });
    const reference = m!.closedBook!;
    expect(reference).toMatchObject({ label: 'closed-book (items with gold evidence)', restricted: true, n: 7 });
    const closed = [0, 1, 2, 3, 4, 5, 6].map((i) => scoreOf(i, 'closed-book'));
    expect(reference.mean).toBeCloseTo(closed.reduce((a, b) => a + b, 0) / closed.length, 12);
  });

  it('is null for a run without oracle+noise conditions', () => {
    const { records, summary } = run();
    const plain = records.filter((r) => r.retriever === null || r.retriever === 'bm25');
    expect(noiseStudy(plain, summary, manifest)).toBeNull();
    expect(noiseStudy(records, summary, { components: { retrievers: { bm25: { name: 'bm25' } } } })).toBeNull();
    expect(noiseStudy(records, summary, {})).toBeNull();
    expect(noiseStudyHtml(null)).toBe('');
  });
});

describe('noiseStudyHtml', () => {
  const claims = (x: number) => ({
    noiseSensitivityRelevant: { mean: x, ciLow: x - 1, ciHigh: x + 1, n: 6, failed: 0 },
    noiseSensitivityIrrelevant: { mean: x + 10, ciLow: x + 9, ciHigh: x + 11, n: 6, failed: 0 },
    faithfulness: { mean: 80, ciLow: 70, ciHigh: 90, n: 6, failed: 0 },
    claimRecall: { mean: 60, ciLow: 50, ciHigh: 70, n: 6, failed: 0 },
  });

  function study(models: string[], diagnosed = false): NoiseStudy {
    const { records, summary } = run({ models });
    if (diagnosed) {
      for (const cell of summary.cells) {
        if (cell.k !== null) (cell as any).diagnostics = { decomposition: null, claims: claims(cell.k * 3 + 0.2), diagnosed: 6, checkerCalls: null, allPairsCalls: null, diagnosticsCost: null };
      }
    }
    return noiseStudy(records, summary, manifest, { resamples: RESAMPLES, seed: SEED })!;
  }

  it('draws one svg per chart: score vs noise rate and score vs gold position, per model', () => {
    const html = noiseStudyHtml(study(['m']));
    expect(html).toContain(`<h2 id="${NOISE_STUDY_SECTION_ID}">`);
    expect(html.match(/<svg/g)).toHaveLength(2);
    expect(html.match(/<svg[^>]*class="marks noise-rate-chart"/g)).toHaveLength(1);
    expect(html.match(/<svg[^>]*class="marks gold-position-chart"/g)).toHaveLength(1);
    expect(html).toContain('reference_line_marks"');
    expect(html).toContain('error_bar_marks"');
    expect(html).toContain('<p class="meta">');
    // Ticks: the noise rate on a fixed 0–1 axis; positions by name.
    const rate = /<svg[^>]*class="marks noise-rate-chart"[\s\S]*?<\/svg>/.exec(html)![0];
    expect(axisLabels(rate)[0]).toEqual(['0.0', '0.2', '0.4', '0.6', '0.8', '1.0']);
    const position = /<svg[^>]*class="marks gold-position-chart"[\s\S]*?<\/svg>/.exec(html)![0];
    expect(axisLabels(position)[0]).toEqual(['first', 'last']);
    expect(html).not.toContain('noise-diagnostics');
    expect(noiseStudyHtml(study(['a', 'b'])).match(/<svg/g)).toHaveLength(4);
  });

  it('escapes model and condition labels', () => {
    const html = noiseStudyHtml(study(['<script>x</script>'], true));
    expect(html).not.toContain('<script>');
    expect(html).toContain('<h3>&lt;script&gt;x&lt;/script&gt;</h3>');
    const label = noiseStudy(
      run().records.map((r) => (r.retriever === 'gold-first' ? { ...r, retriever: 'gold-<b>first</b>', condition: r.condition.replace('gold-first', 'gold-<b>first</b>') } : r)),
      run().summary,
      { components: { retrievers: { 'gold-<b>first</b>': manifest.components.retrievers['gold-first'] } } },
    );
    const escaped = noiseStudyHtml(label);
    expect(escaped).not.toContain('<b>first</b>');
    expect(escaped).toContain('gold-&lt;b&gt;first&lt;/b&gt;');
  });

  it('shows the claim diagnostics of the noise conditions beside the charts when cells have them', () => {
    const html = noiseStudyHtml(study(['m'], true));
    const table = /<table class="noise-diagnostics">[\s\S]*?<\/table>/.exec(html)?.[0];
    expect(table).toBeDefined();
    expect(table).toContain('noise sensitivity, relevant passages');
    expect(table).toContain('faithfulness');
    expect(table).toContain('claim recall');
    // One row per retrieval condition (oracle+noise and real retrieval), none for closed-book.
    expect(table!.match(/<tr><td>/g)).toHaveLength(4);
    expect(table).toContain('<td>gold-last/rag@5</td><td>random</td><td>last</td><td>5</td><td>0.800</td><td>6</td><td>15.2 <span class="ci">[14.2, 16.2]</span></td>');
    expect(table).toContain('<td>bm25/rag@5</td><td>(real retrieval)</td><td>–</td><td>5</td><td>0.700</td>');
  });
});

describe('the ProHist noise-study config', () => {
  it('passes config validation, down to every component', async () => {
    const config = await loadExperimentConfig(join(REPO_ROOT, 'experiments', 'prohist-noise.yaml'));
    await expect(validateComponents(config)).resolves.toBeUndefined();
    const retrievers = config.retrieval!.retrievers!;
    expect(retrievers.filter((r) => r.name === 'oracle+noise')).toHaveLength(6);
    expect(config.benchmarks).toMatchObject([{ name: 'jsonl' }]);
  });
});

describe('the offline noise-study demo (experiments/demo-noise.yaml)', () => {
  let dir: string;
  let records: RunItemRecord[];
  let summary: RunSummary;
  let manifestOfRun: Record<string, unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-noise-study-'));
    const config = parse(readFileSync(join(REPO_ROOT, 'experiments', 'demo-noise.yaml'), 'utf8'));
    config.output = join(dir, 'runs');
    config.prepare.corpora[0].out = join(dir, 'corpus');
    config.prepare.indexes[0].out = join(dir, 'index');
    config.prepare.indexes[0].corpus = join(dir, 'corpus');
    for (const retriever of config.retrieval.retrievers) retriever.index = join(dir, 'index');
    const file = join(dir, 'demo-noise.yaml');
    writeFileSync(file, stringify(config));
    const result = await runCli(['run', file, '--run-id', 'noise', '--no-progress']);
    expect(result.code, result.stderr).toBe(0);
    const runDir = join(dir, 'runs', 'noise');
    records = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    manifestOfRun = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives a curve per gold position at the noise rates its prompts had', () => {
    const study = noiseStudy(records, summary, manifestOfRun)!;
    expect(study).not.toBeNull();
    const [m] = study.models;
    expect(m!.byNoiseRate.map((s) => s.label).sort()).toEqual(['gold-first', 'gold-last', 'gold-middle']);
    for (const series of m!.byNoiseRate) {
      // The rates straight from the records: gold (score 1) among the prompt's passages.
      const expected = new Set<number>();
      for (const r of records.filter((r) => r.retriever === series.retriever && r.score.status === 'scored')) {
        const gold = new Set(r.retrieved.filter((c) => c.score === 1).map((c) => c.id));
        if (gold.size === 0) continue;
        expected.add(Math.round((1 - r.contextIds.filter((id) => gold.has(id)).length / r.contextIds.length) * 1000) / 1000);
      }
      expect(series.points.map((p) => p.x)).toEqual([...expected].sort((a, b) => a - b));
      // One gold page at k = 1, 3, 5, 10 (the documents that have 10 pages).
      expect(series.points.map((p) => p.x)).toEqual(expect.arrayContaining([0, 0.667, 0.8, 0.9]));
      expect(series.points.reduce((n, p) => n + p.n, 0)).toBe(records.filter((r) => r.retriever === series.retriever).length - m!.excludedNoGold / 3);
    }
    expect(m!.byGoldPosition.map((s) => s.k)).toEqual([3, 5, 10]);
    for (const series of m!.byGoldPosition) expect(series.points.map((p) => p.position)).toEqual(['first', 'middle', 'last']);
    expect(m!.realistic.map((s) => s.retriever)).toEqual(['bm25']);
    expect(m!.closedBook?.condition).toBe('closed-book');
    const html = noiseStudyHtml(study);
    expect(html.match(/<svg/g)).toHaveLength(2);
  });
});
