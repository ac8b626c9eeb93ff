import { describe, expect, it } from 'vitest';
import { mapInLengthBatches, planBatchesByLength } from '../../src/models/lengthBatches.js';

describe('length-bucketed batching', () => {
  it('groups inputs of similar length, longest first, ties by input order', () => {
    expect(planBatchesByLength([3, 9, 1, 9, 4], 2)).toEqual([[1, 3], [4, 0], [2]]);
  });

  it('returns outputs in input order whatever order the batches finish in', async () => {
    const lengths = [5, 1, 4, 2, 3];
    const seen: number[][] = [];
    const out = await mapInLengthBatches(lengths, 2, 3, async (indexes) => {
      seen.push(indexes);
      await new Promise((resolve) => setTimeout(resolve, indexes.includes(0) ? 20 : 0)); // the first batch finishes last
      return indexes.map((i) => `x${i}`);
    });
    expect(out).toEqual(['x0', 'x1', 'x2', 'x3', 'x4']);
    expect(seen).toEqual([[0, 2], [4, 3], [1]]);
  });

  it('keeps at most `parallel` batches in flight', async () => {
    let inFlight = 0;
    let most = 0;
    await mapInLengthBatches(Array(10).fill(1), 1, 2, async (indexes) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return indexes;
    });
    expect(most).toBe(2);
  });
});
