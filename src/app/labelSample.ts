import { resolve } from 'node:path';
import { itemKeyOf } from '../analysis/observations.js';
import { benchmarks } from '../benchmarks/registry.js';
import type { BenchmarkItem } from '../benchmarks/types.js';
import type { ComponentSpec } from '../registry.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { InputError } from '../errors.js';
import { clusterFieldOf, clusterKeyOf } from '../experiment/clusterKey.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { listAnnotators, readLabels, readLabelSample, writeLabelSample } from '../runFiles/labelFiles.js';
import { LABEL_FILE_VERSION, type LabelSample } from '../runFiles/labels.js';
import { FastRandom } from '../statistics/clusters.js';
import { drawLabelled, type LabelAllocation } from '../statistics/labelDraw.js';
import { assertRunDirectory, readRunRecords } from '../runFiles/runDir.js';
import { readRunConfig } from '../config/runConfig.js';

export interface DrawOptions {
  /** Questions per condition. */
  size: number;
  baseline: string;
  /** Conditions besides the baseline (the baseline is added when missing). */
  conditions: string[];
  seed: number;
  /** Cluster field to spread the draw over (`none` or absent for none where the records carry no default). */
  strata?: string | undefined;
  /** How the draw is spread over the clusters (default `proportional`: every question equally likely). */
  allocation?: LabelAllocation | undefined;
  drawnAt?: string;
}

function shuffle<T>(values: T[], next: (n: number) => number): T[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = next(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Draws the answers to label: `size` questions that have a scored answer under the baseline and every
 * condition (so each paired difference can be corrected on the same questions), spread over
 * the clusters as evenly as they allow (clusters in seeded random order, one question from each in
 * turn), and for each drawn question every model's scored answer (first sample) under those
 * conditions, in a seeded order within the question so the condition cannot be guessed from position.
 */
export function drawLabelSample(records: readonly RunItemRecord[], options: DrawOptions): LabelSample {
  const conditions = [options.baseline, ...options.conditions.filter((c) => c !== options.baseline)];
  const present = new Set(records.map((r) => r.condition));
  const unknown = conditions.filter((c) => !present.has(c));
  if (unknown.length) throw new InputError(`no answers under condition ${unknown.map((c) => `"${c}"`).join(', ')} (the run's conditions: ${[...present].join(', ')})`);
  const scored = records.filter((r) => r.score.status === 'scored' && r.score.score !== null && conditions.includes(r.condition));
  // One answer per question, model and condition: the lowest sample.
  const answers = new Map<string, Map<string, RunItemRecord>>();
  for (const record of scored) {
    const byCell = answers.get(itemKeyOf(record)) ?? new Map<string, RunItemRecord>();
    const cell = `${record.model}\u0000${record.condition}`;
    const held = byCell.get(cell);
    if (!held || (record.sample ?? 0) < (held.sample ?? 0)) byCell.set(cell, record);
    answers.set(itemKeyOf(record), byCell);
  }
  const complete = [...answers.entries()].filter(([, byCell]) => conditions.every((c) => [...byCell.values()].some((r) => r.condition === c)));
  if (!complete.length) throw new InputError(`no question has a scored answer under every one of ${conditions.join(', ')}`);
  const field = clusterFieldOf([...records], options.strata);
  const clusterOf = field ? clusterKeyOf(field) : null;
  const clusters = new Map<string, string[]>();
  for (const [itemKey, byCell] of complete) {
    const cluster = clusterOf ? clusterOf([...byCell.values()][0]!) : itemKey;
    clusters.set(cluster, [...(clusters.get(cluster) ?? []), itemKey]);
  }
  const random = new FastRandom(options.seed);
  const next = (n: number) => random.index(n);
  const allocation = options.allocation ?? 'proportional';
  const { keys: itemKeys, inclusion } = drawLabelled(clusters, options.size, allocation, random);
  const keys = itemKeys.flatMap((itemKey) => shuffle([...answers.get(itemKey)!.values()].map((r) => r.key).sort(), next));
  return {
    version: LABEL_FILE_VERSION,
    drawnAt: options.drawnAt ?? new Date().toISOString(),
    seed: options.seed,
    baseline: options.baseline,
    conditions,
    size: itemKeys.length,
    cluster: field,
    allocation,
    itemKeys,
    keys,
    inclusion: Object.fromEntries(itemKeys.map((k) => [k, inclusion.get(k)!])),
  };
}

export interface AnnotateDrawOptions {
  size: number;
  conditions?: string[] | undefined;
  baseline?: string | undefined;
  seed?: number | undefined;
  strata?: string | undefined;
  allocation?: LabelAllocation | undefined;
  /** Replace a sample that already has labels. */
  redraw?: boolean;
}

/** Every benchmark item of a config, by item key (`<benchmark>:<id>`). */
export async function benchmarkItemsOf(config: ExperimentConfig): Promise<Map<string, BenchmarkItem>> {
  const out = new Map<string, BenchmarkItem>();
  for (const spec of config.benchmarks) {
    for (const item of await (await benchmarks.create(spec as ComponentSpec, undefined)).load()) out.set(`${item.benchmark}:${item.id}`, item);
  }
  return out;
}

/** A run directory's config and records, read without taking its writer lock (labelling only reads them). */
export async function readRunForLabels(dir: string): Promise<{ runDir: string; config: ExperimentConfig; records: RunItemRecord[] }> {
  const runDir = resolve(dir);
  assertRunDirectory(runDir);
  return { runDir, config: await readRunConfig(runDir), records: await readRunRecords(runDir) };
}

/** `hisrag annotate <run-dir>`: draws the sample to label and writes labels/sample.json. */
export async function drawRunLabelSample(dir: string, options: AnnotateDrawOptions): Promise<{ runDir: string; sample: LabelSample; requested: number }> {
  const { runDir, config, records } = await readRunForLabels(dir);
  const existing = await readLabelSample(runDir);
  if (existing && !options.redraw) {
    const drawn = new Set(existing.keys);
    for (const annotator of await listAnnotators(runDir)) {
      if ((await readLabels(runDir, annotator)).some((l) => drawn.has(l.key))) {
        throw new InputError(`${runDir}: labels/sample.json already has labels (${annotator}); --redraw replaces the sample (the labels stay in their files)`);
      }
    }
  }
  const baseline = options.baseline ?? config.scoring.baseline;
  const conditions = options.conditions ?? [...new Set(records.map((r) => r.condition))];
  const sample = drawLabelSample(records, { size: options.size, baseline, conditions, seed: options.seed ?? config.seed ?? 0, strata: options.strata ?? config.scoring.cluster, allocation: options.allocation });
  await writeLabelSample(runDir, sample);
  return { runDir, sample, requested: options.size };
}
