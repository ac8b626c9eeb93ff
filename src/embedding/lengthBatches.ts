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
