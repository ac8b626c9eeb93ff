/**
 * The draw of the questions a person labels, with each question's inclusion probability known in
 * closed form, so the estimators of `ppi.ts` can weight a labelled question by 1/π and stay unbiased
 * for the whole run whatever the cluster sizes. Pure (the caller gives clusters of question keys and
 * the random source): `app/labelSample.ts` draws a run's sample with it, `simulatePpi.ts` the
 * simulation's, so the proof by simulation exercises the project's own draw.
 */
import type { FastRandom } from './clusters.js';

/**
 * `proportional`: a systematic sample from the questions listed cluster by cluster (clusters in
 * random order, questions shuffled within), so each cluster gets ⌊n·N_h/N⌋ or ⌈n·N_h/N⌉ questions and
 * every question the same π = n/N. `even`: one question from each cluster in turn (round-robin, the
 * draw before inclusion probabilities were recorded), so a question of a small cluster is likelier
 * to be drawn; its unequal π is recorded.
 */
export type LabelAllocation = 'proportional' | 'even';

export interface LabelDraw {
  /** The questions drawn, in draw order. */
  keys: string[];
  /** Every question's inclusion probability π (drawn or not): the weights of the estimators are 1/π of the drawn ones. */
  inclusion: Map<string, number>;
}

function shuffle<T>(values: readonly T[], random: FastRandom): T[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.index(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Draws `size` questions from `clusters` (cluster → its question keys; keys unique across clusters). */
export function drawLabelled(clusters: ReadonlyMap<string, readonly string[]>, size: number, allocation: LabelAllocation, random: FastRandom): LabelDraw {
  const queues = shuffle([...clusters.keys()].sort(), random).map((c) => shuffle([...clusters.get(c)!].sort(), random));
  const total = queues.reduce((s, q) => s + q.length, 0);
  const n = Math.min(Math.max(0, Math.floor(size)), total);
  return allocation === 'proportional' ? systematic(queues, n, total, random) : roundRobin(queues, n);
}

/** Positions ⌊u + k·N/n⌋, u uniform on [0, N/n): each position is drawn with probability exactly n/N. */
function systematic(queues: string[][], n: number, total: number, random: FastRandom): LabelDraw {
  const listed = queues.flat();
  const inclusion = new Map(listed.map((key) => [key, total ? n / total : 0]));
  if (n === 0) return { keys: [], inclusion };
  const step = total / n;
  const start = (random.word() / 4294967296) * step;
  const keys = Array.from({ length: n }, (_, k) => listed[Math.min(total - 1, Math.floor(start + k * step))]!);
  return { keys, inclusion };
}

/**
 * Round-robin over clusters in random order: t full rounds (each cluster gives min(N_h, t)), then
 * the first r of the E clusters with more than t questions give one more. A cluster of N_h > t is
 * among those r with probability r/E, so each of its questions is drawn with π = (t + r/E)/N_h; a
 * cluster of N_h ≤ t is drawn whole (π = 1).
 */
function roundRobin(queues: string[][], n: number): LabelDraw {
  const keys: string[] = [];
  for (let round = 0; keys.length < n; round++) {
    for (const queue of queues) if (round < queue.length && keys.length < n) keys.push(queue[round]!);
  }
  const taken = (rounds: number) => queues.reduce((s, q) => s + Math.min(q.length, rounds), 0);
  let t = 0;
  while (taken(t + 1) <= n && taken(t + 1) > taken(t)) t++;
  const eligible = queues.filter((q) => q.length > t).length;
  const extra = eligible ? (n - taken(t)) / eligible : 0;
  const inclusion = new Map<string, number>();
  for (const queue of queues) for (const key of queue) inclusion.set(key, queue.length <= t ? 1 : (t + extra) / queue.length);
  return { keys, inclusion };
}
