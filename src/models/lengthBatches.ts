import pLimit from 'p-limit';

/**
 * Groups text indexes into batches of similar token length (longest first), so that each model
 * call pads little; callers put the vectors back by index.
 */
export function planBatchesByLength(tokenCounts: number[], batchSize: number): number[][] {
  const order = tokenCounts.map((_, i) => i).sort((a, b) => tokenCounts[b]! - tokenCounts[a]! || a - b);
  const batches: number[][] = [];
  for (let start = 0; start < order.length; start += batchSize) batches.push(order.slice(start, start + batchSize));
  return batches;
}

/**
 * Runs a model over inputs in length-grouped batches, `parallel` batches in flight (one per worker
 * process, or one in all for an in-process model: memory stays bounded), and returns the outputs in
 * input order. `runBatch` gets the inputs' indexes and returns one output per index.
 */
export async function mapInLengthBatches<T>(
  tokenCounts: number[],
  batchSize: number,
  parallel: number,
  runBatch: (indexes: number[]) => Promise<ArrayLike<T>>,
): Promise<T[]> {
  const out: T[] = new Array(tokenCounts.length);
  const limit = pLimit(Math.max(1, parallel));
  await Promise.all(
    planBatchesByLength(tokenCounts, batchSize).map((indexes) =>
      limit(async () => {
        const outputs = await runBatch(indexes);
        indexes.forEach((inputIndex, j) => (out[inputIndex] = outputs[j]!));
      }),
    ),
  );
  return out;
}
