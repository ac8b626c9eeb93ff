import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { mulberry32 } from '../../src/models/fixture/seededRandom.js';

/**
 * The issue's "done when", end to end through the CLI: a ProHist-format benchmark written here (no
 * bundled data), saved closed-book and RAG answers, judged over a local OpenAI-compatible server whose
 * judge marks a missing rubric item as hit 40% of the time when the answer opens with 据检索材料 and
 * 5% otherwise (seeded), the sample `hisrag annotate` draws, labels (the true marks) imported from a
 * file, and `hisrag judges` / `hisrag report` on the run.
 */

const QUESTIONS = 80;
const WEIGHTS = [4, 3, 2, 1];
const SAMPLE = 40;

const unit = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest().readUInt32BE(0) / 2 ** 32;
const fact = (q: number, i: number) => `史事${q}之${'甲乙丙丁'[i]}`;
const rubricScore = (hits: number[]) => (100 * hits.reduce((s, h, i) => s + h * WEIGHTS[i]!, 0)) / WEIGHTS.reduce((s, w) => s + w, 0);

/** Questions with four weighted bonus items and one deduction; each answer's true hits (RAG +0.12 per item). */
function unseenBenchmark() {
  const random = mulberry32(2024);
  const questions = Array.from({ length: QUESTIONS }, (_, q) => ({
    id: `unseen-${String(q).padStart(3, '0')}`,
    category: '简答题',
    question: `请简述第${q}个问题所涉之史事。`,
    rubrics: `加分项：\n${WEIGHTS.map((w, i) => `${i + 1}、指出${fact(q, i)}{+${w}}`).join('\n')}\n减分项：\n1、出现史实错误{-5}`,
    dynasty: ['唐', '宋', '明', '清'][q % 4],
  }));
  const truth: Record<'closed-book' | 'rag', number[][]> = { 'closed-book': [], rag: [] };
  const answers: Record<'closed-book' | 'rag', { itemId: string; answer: string }[]> = { 'closed-book': [], rag: [] };
  questions.forEach((question, q) => {
    const base = 0.25 + 0.4 * random();
    for (const condition of ['closed-book', 'rag'] as const) {
      const hits = WEIGHTS.map(() => (random() < base + (condition === 'rag' ? 0.12 : 0) ? 1 : 0));
      truth[condition].push(hits);
      const said = hits.flatMap((h, i) => (h ? [`${fact(q, i)}。`] : []));
      const body = said.length ? said.join('') : '此事未详。';
      answers[condition].push({ itemId: question.id, answer: condition === 'rag' ? `据检索材料，${body}` : body });
    }
  });
  return { questions, truth, answers };
}

/**
 * The judges the server plays, by model: `overcredit-judge` gives the true verdicts plus a missing
 * bonus item marked hit (40% after 据检索材料, 5% otherwise); `fair-judge` the true verdicts;
 * `lenient-judge` a missing item hit 30% of the time whatever the answer (its own draws).
 */
function serverJudge(model: string, content: string): string {
  const answer = content.split('【待评答案】\n')[1]!.split('\n\n【评分细则】')[0]!;
  const rubric = content.split('【评分细则】\n')[1]!.split('\n\n【输出格式】')[0]!;
  const rate = model === 'fair-judge' ? 0 : model === 'lenient-judge' ? 0.3 : answer.startsWith('据检索材料') ? 0.4 : 0.05;
  const bonus = [...rubric.matchAll(/^(\d+)、指出(\S+?)\{/gm)].map((m) => ({ key: `加分项_${m[1]}`, text: m[2]! }));
  const lines = bonus.map(({ key, text }) => `${key}: ${answer.includes(text) || unit(model, answer, key) < rate ? 1 : 0}`);
  return [...lines, '减分项_1: 0'].join('\n');
}

/** Pearson's r, written out here so the test does not take the figure from the code it checks. */
function pearsonR(x: number[], y: number[]): number {
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

const jsonl = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const byKeyOrder = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

describe('a biased judge over an OpenAI-compatible endpoint, checked against imported labels (unseen ProHist-format data)', () => {
  let server: OpenAIServer;
  let dir: string;
  let runDir: string;
  let check: any;
  let judgesText: string;
  const data = unseenBenchmark();
  const trueScore = (condition: 'closed-book' | 'rag', q: number) => rubricScore(data.truth[condition][q]!);
  const trueDelta = data.questions.reduce((s, _, q) => s + trueScore('rag', q) - trueScore('closed-book', q), 0) / QUESTIONS;

  beforeAll(async () => {
    server = await startOpenAIServer({ respond: (request) => serverJudge(request.model, String(request.messages.at(-1)!.content)) });
    dir = mkdtempSync(join(tmpdir(), 'hisrag-judge-endpoint-'));
    writeFileSync(join(dir, 'unseen.json'), JSON.stringify(data.questions));
    for (const condition of ['closed-book', 'rag'] as const) writeFileSync(join(dir, `${condition}.jsonl`), data.answers[condition].map((a) => JSON.stringify(a)).join('\n') + '\n');
    const config = {
      name: 'unseen-judge',
      seed: 11,
      output: join(dir, 'runs'),
      benchmark: { name: 'prohist', file: join(dir, 'unseen.json') },
      strategies: [
        { name: 'outputs', label: 'closed-book', file: join(dir, 'closed-book.jsonl') },
        { name: 'outputs', label: 'rag', file: join(dir, 'rag.jsonl') },
      ],
      models: [{ name: 'extractive', label: 'saved' }],
      judge: { name: 'llm', retries: 0, generator: { name: 'openai', baseURL: server.url, model: 'overcredit-judge', retries: 0, cache: join(dir, 'judge-cache.sqlite') } },
      scoring: { bootstrapResamples: 1000, textMetrics: false, cluster: 'dynasty' },
    };
    writeFileSync(join(dir, 'config.yaml'), stringify(config));
    const run = await runCli(['run', join(dir, 'config.yaml'), '--run-id', 'judged', '--no-progress']);
    expect(run.code, run.stderr).toBe(0);
    runDir = join(dir, 'runs', 'judged');

    const draw = await runCli(['annotate', runDir, '--size', String(SAMPLE), '--seed', '5']);
    expect(draw.code, draw.stderr).toBe(0);
    // The labels: the true marks of the drawn answers, made "elsewhere" and imported from a file; a
    // second annotator marks the first 12 drawn questions, one item read differently on RAG answers.
    const sample = JSON.parse(readFileSync(join(runDir, 'labels', 'sample.json'), 'utf8')) as { keys: string[]; itemKeys: string[] };
    const marks = (key: string, flip: boolean) => {
      const [, condition, itemKey] = key.split('|') as [string, 'closed-book' | 'rag', string];
      const q = data.questions.findIndex((x) => `prohist:${x.id}` === itemKey);
      const hits = data.truth[condition][q]!;
      const verdicts: Record<string, number> = Object.fromEntries(hits.map((h, i) => [`加分项_${i + 1}`, h]));
      if (flip && condition === 'rag') verdicts['加分项_1'] = 1 - verdicts['加分项_1']!;
      return { key, verdicts: { ...verdicts, 减分项_1: 0 } };
    };
    writeFileSync(join(dir, 'h1.jsonl'), sample.keys.map((k) => JSON.stringify(marks(k, false))).join('\n') + '\n');
    const early = new Set(sample.itemKeys.slice(0, 12));
    writeFileSync(join(dir, 'h2.jsonl'), sample.keys.filter((k) => early.has(k.split('|')[2]!)).map((k) => JSON.stringify(marks(k, true))).join('\n') + '\n');
    for (const annotator of ['h1', 'h2']) {
      const imported = await runCli(['annotate', runDir, '--import', join(dir, `${annotator}.jsonl`), '--annotator', annotator]);
      expect(imported.code, imported.stderr).toBe(0);
    }
    const json = await runCli(['judges', runDir, '--json']);
    expect(json.code, json.stderr).toBe(0);
    check = JSON.parse(json.stdout);
    judgesText = (await runCli(['judges', runDir])).stdout;
  }, 240_000);
  afterAll(() => server?.close());

  it('judged every answer over the endpoint, and drew the same questions in both conditions', () => {
    const records = jsonl(join(runDir, 'items.jsonl'));
    expect(records).toHaveLength(2 * QUESTIONS);
    expect(records.every((r) => r.score.status === 'scored')).toBe(true);
    expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(2 * QUESTIONS);
    const sample = JSON.parse(readFileSync(join(runDir, 'labels', 'sample.json'), 'utf8'));
    expect(sample.keys).toHaveLength(2 * SAMPLE);
    expect(check.labelledAnswers).toBe(2 * SAMPLE);
  });

  it('reports the judge-only Δ and the corrected Δ; the corrected interval holds the Δ the labels imply, the judge-only one does not hold the true Δ', () => {
    const delta = check.differences.find((d: any) => d.condition === 'rag');
    expect(delta).toMatchObject({ baseline: 'closed-book', n: QUESTIONS, labelled: SAMPLE });
    // The Δ the labels imply: per labelled question, rag − closed-book of the annotators' mean scores (from the label files).
    const scores = new Map<string, number[]>();
    for (const annotator of ['h1', 'h2']) for (const l of jsonl(join(runDir, 'labels', `${annotator}.jsonl`))) scores.set(l.key, [...(scores.get(l.key) ?? []), l.score]);
    const meanOf = (key: string) => scores.get(key)!.reduce((s, v) => s + v, 0) / scores.get(key)!.length;
    const sample = JSON.parse(readFileSync(join(runDir, 'labels', 'sample.json'), 'utf8')) as { itemKeys: string[] };
    const labelDelta = sample.itemKeys.reduce((s, k) => s + meanOf(`saved|rag|${k}`) - meanOf(`saved|closed-book|${k}`), 0) / sample.itemKeys.length;
    expect(delta.labelsOnly.estimate).toBeCloseTo(labelDelta, 9);
    expect(delta.ppiPlusPlus.ciLow).toBeLessThanOrEqual(labelDelta);
    expect(delta.ppiPlusPlus.ciHigh).toBeGreaterThanOrEqual(labelDelta);
    expect(delta.ppiPlusPlus.ciLow).toBeLessThanOrEqual(trueDelta);
    expect(delta.ppiPlusPlus.ciHigh).toBeGreaterThanOrEqual(trueDelta);
    expect(delta.judgeOnly.ciLow).toBeGreaterThan(trueDelta);
    expect(judgesText).toMatch(/Δ judge-only\s+Δ PPI\+\+/);
    expect(judgesText).toContain(`+${delta.ppiPlusPlus.estimate.toFixed(1)} [`);
    expect(judgesText).toContain(`+${delta.judgeOnly.estimate.toFixed(1)} [`);
  });

  it('reports the judge’s bias per condition: large on RAG answers, small on closed-book ones', () => {
    const bias = Object.fromEntries(check.means.map((m: any) => [m.condition, m.bias]));
    expect(bias.rag.ciLow).toBeGreaterThan(bias['closed-book'].estimate);
    expect(bias.rag.estimate).toBeGreaterThan(10);
    expect(bias['closed-book'].estimate).toBeLessThan(6);
    expect(check.differences[0].biasDifference.estimate).toBeGreaterThan(5);
  });

  it('its Pearson figures recompute exactly from the stored verdicts (items.jsonl) and labels (labels/h1.jsonl)', () => {
    const records = new Map(jsonl(join(runDir, 'items.jsonl')).map((r) => [r.key, r]));
    const labels = jsonl(join(runDir, 'labels', 'h1.jsonl')).sort(byKeyOrder);
    const judgeUnits: number[] = [];
    const humanUnits: number[] = [];
    for (const label of labels) {
      const verdicts = records.get(label.key).score.verdicts;
      for (const item of Object.keys(verdicts).sort()) {
        judgeUnits.push(verdicts[item]);
        humanUnits.push(label.verdicts[item]);
      }
    }
    const row = check.agreement.find((r: any) => r.annotator === 'h1');
    expect(row.units).toBe(judgeUnits.length);
    expect(row.rubricPearson.estimate).toBe(pearsonR(judgeUnits, humanUnits));
    expect(row.answerPearson.estimate).toBe(pearsonR(labels.map((l) => records.get(l.key).score.score), labels.map((l) => l.score)));
    expect(row.rubricPearson.estimate).toBeGreaterThan(0.3);
    expect(row.rubricPearson.estimate).toBeLessThan(0.95);
    // Two annotators on the same answers: their agreement, with an interval.
    const between = check.annotatorAgreement[0];
    expect([between.judge, between.annotator, between.answers]).toEqual(['h1', 'h2', 24]);
    expect(between.kappa.ciLow).toBeLessThan(between.kappa.estimate);
  });

  it('hisrag rejudge scores the answers again with other judges over the endpoint (planned first), beside the answers, and hisrag judges puts each and the panel’s majority in the table', async () => {
    const spec = (model: string) => JSON.stringify({ name: 'llm', retries: 0, generator: { name: 'openai', baseURL: server.url, model, retries: 0, cache: join(dir, 'judge-cache.sqlite') } });
    const itemsBefore = readFileSync(join(runDir, 'items.jsonl'), 'utf8');
    const calls = () => server.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    const before = calls();
    const plan = await runCli(['rejudge', runDir, '--judge', spec('fair-judge'), '--as', 'fair', '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`${2 * QUESTIONS} rubric answer(s) to judge with fair (llm, fair-judge); 0 already in judges/fair.jsonl`);
    expect(plan.stdout).toMatch(new RegExp(`judge calls: ${2 * QUESTIONS} \\(about \\d+ prompt tokens`));
    expect(calls()).toBe(before);
    for (const [model, name] of [['fair-judge', 'fair'], ['lenient-judge', 'lenient']]) {
      const run = await runCli(['rejudge', runDir, '--judge', spec(model!), '--as', name!]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`judged ${2 * QUESTIONS} answer(s)`);
    }
    expect(calls()).toBe(before + 4 * QUESTIONS);
    // Resumable: nothing judged twice; items.jsonl (the judge of record) untouched.
    const again = await runCli(['rejudge', runDir, '--judge', spec('fair-judge'), '--as', 'fair']);
    expect(again.stdout).toContain(`0 rubric answer(s) to judge with fair (llm, fair-judge); ${2 * QUESTIONS} already in judges/fair.jsonl`);
    expect(calls()).toBe(before + 4 * QUESTIONS);
    expect(readFileSync(join(runDir, 'items.jsonl'), 'utf8')).toBe(itemsBefore);
    const refused = await runCli(['rejudge', runDir, '--judge', 'lexical', '--as', 'majority']);
    expect(refused.code).toBe(2);

    const table = JSON.parse((await runCli(['judges', runDir, '--json'])).stdout);
    const rowOf = (judge: string) => table.agreement.find((r: any) => r.judge === judge && r.annotator === 'h1');
    const labels = jsonl(join(runDir, 'labels', 'h1.jsonl')).sort(byKeyOrder);
    const verdictsOf = (name: string) => new Map(jsonl(join(runDir, 'judges', `${name}.jsonl`)).map((v) => [v.key, v.score.verdicts as Record<string, number>]));
    const stored = { judge: new Map(jsonl(join(runDir, 'items.jsonl')).map((r) => [r.key, r.score.verdicts as Record<string, number>])), fair: verdictsOf('fair'), lenient: verdictsOf('lenient') };
    const rubricLevel = (verdicts: (key: string) => Record<string, number>) => {
      const x: number[] = [];
      const y: number[] = [];
      for (const label of labels) {
        for (const item of Object.keys(label.verdicts).sort()) {
          x.push(verdicts(label.key)[item]!);
          y.push(label.verdicts[item]);
        }
      }
      return pearsonR(x, y);
    };
    // The fair judge gives the true marks, which h1's labels are: r = 1.
    expect(rowOf('fair').rubricPearson.estimate).toBe(rubricLevel((k) => stored.fair.get(k)!));
    expect(rowOf('fair').rubricPearson.estimate).toBeCloseTo(1, 12);
    expect(rowOf('lenient').rubricPearson.estimate).toBe(rubricLevel((k) => stored.lenient.get(k)!));
    // The majority of three: an item is hit when at least two of the judges mark it hit.
    const majority = (key: string) => Object.fromEntries(Object.keys(stored.fair.get(key)!).map((item) => [item, [stored.judge, stored.fair, stored.lenient].filter((m) => m.get(key)![item] === 1).length >= 2 ? 1 : 0]));
    expect(rowOf('majority(judge,fair,lenient)').rubricPearson.estimate).toBe(rubricLevel(majority));
    expect(rowOf('majority(judge,fair,lenient)').rubricPearson.estimate).toBeGreaterThan(rowOf('judge').rubricPearson.estimate);
    for (const judge of ['fair', 'lenient', 'majority(judge,fair,lenient)']) for (const figure of ['answerPearson', 'kappa', 'alpha']) expect(rowOf(judge)[figure], `${judge} ${figure}`).not.toBeNull();
    expect((await runCli(['judges', runDir])).stdout).toMatch(/^majority\(judge,fair,lenient\)\s+h1\s+80\s+400\s/m);
    // Batched like a run's judge: with batch on (and a cache of its own), the calls go through the Batch API, none live.
    const batchedSpec = JSON.stringify({ name: 'llm', retries: 0, generator: { name: 'openai', baseURL: server.url, model: 'fair-judge', retries: 0, cache: join(dir, 'batched-cache.sqlite'), batch: { pollMs: 10 } } });
    const batched = await runCli(['rejudge', runDir, '--judge', batchedSpec, '--as', 'fair-batched']);
    expect(batched.code, batched.stderr).toBe(0);
    expect(calls()).toBe(before + 4 * QUESTIONS);
    expect(server.batchLines.length).toBe(2 * QUESTIONS);
    const scoresOf = (name: string) => jsonl(join(runDir, 'judges', `${name}.jsonl`)).map((v) => [v.key, v.score.verdicts]).sort();
    expect(scoresOf('fair-batched')).toEqual(scoresOf('fair'));
  });

  it('hisrag report writes the corrected figures into summary.json and the report', async () => {
    const report = await runCli(['report', runDir]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/Δ PPI\+\+/);
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary.judgeCheck.differences[0].ppiPlusPlus).toEqual(check.differences[0].ppiPlusPlus);
    expect(summary.judgeCheck.synthetic).toBe(false);
    expect(readFileSync(join(runDir, 'report.html'), 'utf8')).toMatch(/id="judge-check"/);
  });
});
