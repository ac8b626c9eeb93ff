import { describe, expect, it } from 'vitest';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import { methods } from '../../src/methods/registry.js';
import type { RetrievedChunk } from '../../src/retrieval/types.js';

const item: BenchmarkItem = { id: 'q1', benchmark: 'prohist', kind: 'rubric', question: '科举制始于哪个朝代？', category: '简答题', meta: {} } as BenchmarkItem;
const passages: RetrievedChunk[] = [1, 2, 3].map((rank) => ({ id: `c${rank}`, docId: `d${rank}`, title: `题${rank}`, text: `隋朝开科举。第${rank}段。`, meta: {}, score: 1 / rank, rank }));

/** Methods the plan bounds by their declared calls, with parameters that change how many calls they make. */
const SPECS = [
  { name: 'refine', mode: 'abstractive' },
  { name: 'adaptive' },
  { name: 'iter-retgen', rounds: 4 },
  { name: 'ircot', maxSteps: 3 },
  { name: 'self-ask', maxFollowUps: 2 },
  { name: 'sure', candidates: 4 },
  { name: 'agent', maxSteps: 5 },
  { name: 'hyde', hypotheses: 3 },
  { name: 'query-rewrite' },
  { name: 'rag-fusion', queries: 5 },
  { name: 'compress', ratio: 0.5, scorer: { model: 'models/not-loaded-when-planning' } },
];
/** Methods whose calls grow with k (CRAG grades each passage: k + 1), planned per answer from its passages. */
const K_DEPENDENT = [{ name: 'crag', fallback: { name: 'bm25', index: 'indexes/not-opened-when-planning' } }];

describe('the calls a method declares for the plan', () => {
  it('agree with its call bounds: the calls every answer makes are its minimum, all of them its maximum', async () => {
    for (const spec of SPECS) {
      const method = await methods.create(spec, undefined, spec.name);
      const calls = await method.planCalls!({ item, k: 3, questionPassages: passages });
      expect(calls.filter((c) => c.always).length, spec.name).toBe(method.calls!.min);
      expect(calls.length, spec.name).toBe(method.calls!.max);
      expect(new Set(calls.map((c) => c.label)).size, `${spec.name}: labels`).toBe(calls.length);
    }
  });

  it('CRAG plans one grade a retrieved passage, and the answer', async () => {
    const method = await methods.create(K_DEPENDENT[0]!, undefined, 'crag');
    const calls = await method.planCalls!({ item, k: 3, questionPassages: passages });
    expect(calls.map((c) => [c.label, c.always])).toEqual([['grade[1]', true], ['grade[2]', true], ['grade[3]', true], ['answer', true]]);
  });

  it('every method of the registry is planned: exactly (one prompt), by its declared calls, or as an external system', async () => {
    const external = new Set(['http', 'langchain-runnable', 'outputs']);
    for (const name of methods.names().filter((n) => !external.has(n))) {
      const spec = [...SPECS, ...K_DEPENDENT].find((s) => s.name === name) ?? { name };
      const method = await methods.create(spec, undefined, name);
      expect(Boolean(method.calls?.singleShot) || typeof method.planCalls === 'function', name).toBe(true);
    }
  });
});
