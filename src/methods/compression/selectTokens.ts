/**
 * Token-level selection of Selective-Context / LongLLMLingua: of all the context's tokens, the
 * `keep` that carry the most self-information survive, in their original order (ties: the earlier
 * token). Pure, so that the ratio it reaches can be checked without a model.
 */
export function selectTokens(passages: { information: number[] }[], keep: number): boolean[][] {
  const all: { passage: number; index: number; information: number; order: number }[] = [];
  passages.forEach((p, passage) => p.information.forEach((information, index) => all.push({ passage, index, information, order: all.length })));
  const kept = new Set(
    all
      .sort((a, b) => b.information - a.information || a.order - b.order)
      .slice(0, Math.max(0, keep))
      .map((t) => t.order),
  );
  let order = 0;
  return passages.map((p) => p.information.map(() => kept.has(order++)));
}

/** Runs of consecutive kept tokens of one passage, as id lists (each decoded on its own). */
export function keptRuns(ids: number[], kept: boolean[]): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  ids.forEach((id, i) => {
    if (kept[i]) run.push(id);
    else if (run.length) {
      runs.push(run);
      run = [];
    }
  });
  if (run.length) runs.push(run);
  return runs;
}
