import { SWEEP_SEPARATOR } from '../config/chunkingSweep.js';
import { groupBy } from '../diagnostics/groupBy.js';

// The depth and chunking comparisons tested together as two named families: one definition for
// before the run (the power plan) and after it (the summary).

/** One condition of a depth series: its model, strategy, retriever, depth (k or a budget in tokens), chunking and mean context tokens where known. */
export interface DepthPoint {
  model: string;
  condition: string;
  strategy: string;
  retriever: string | null;
  unit: 'k' | 'contextTokens';
  depth: number;
  /** The corpus its retriever reads; without one a condition is in no chunking comparison. */
  corpus?: string;
  /** Mean context tokens per answer; without them a k condition is in no chunking comparison. */
  tokens?: number;
}

/** The chunking chunks come from: the corpus (a chunk id's first part, `<corpus>:<document>:<n>`) most of them name (ties: the first by name); undefined for none. */
export function corpusOfChunks(ids: Iterable<string>): string | undefined {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id.split(':')[0]!, (counts.get(id.split(':')[0]!) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

export type DepthFamilyKind = 'depth' | 'chunking';

/** condition − reference, in family `kind`. */
export interface FamilyComparison {
  kind: DepthFamilyKind;
  model: string;
  condition: string;
  reference: string;
}

/** The family's name, as the summary, the terminal, the report and the power plan print it. */
export function depthFamilyName(kind: DepthFamilyKind, size: number): string {
  return kind === 'depth'
    ? `depth steps: ${size} comparisons, each depth vs the next shallower`
    : `chunkings at equal context: ${size} comparisons (same budget, or nearest mean context tokens)`;
}

/** What `reference` means in each family (the summary's `families[].reference`). */
export const DEPTH_FAMILY_REFERENCE: Record<DepthFamilyKind, string> = { depth: 'the next shallower depth', chunking: 'the other chunking at equal context' };

/**
 * **Depth steps**: per model × strategy × retriever × unit, each depth against the next shallower.
 * **Chunkings at equal context**: per group (`chunkingGroups`) and pair of corpora A < B, each budget
 * of B against the same budget of A, and each k of A against the k of B nearest in mean context
 * tokens (by |ln ratio|; ties: the shallower); B − A, each pair once.
 */
export function depthFamilyComparisons(points: readonly DepthPoint[]): FamilyComparison[] {
  const out: FamilyComparison[] = [];
  for (const series of groupBy(points, (p) => `${p.model}\u0000${p.strategy}\u0000${p.retriever ?? ''}\u0000${p.unit}`).values()) {
    const ordered = [...series].sort((a, b) => a.depth - b.depth);
    for (let i = 1; i < ordered.length; i++) out.push({ kind: 'depth', model: ordered[i]!.model, condition: ordered[i]!.condition, reference: ordered[i - 1]!.condition });
  }
  for (const group of chunkingGroups(points.filter((p) => p.corpus !== undefined))) {
    const corpora = [...new Set(group.map((p) => p.corpus!))].sort();
    const seen = new Set<string>();
    const add = (b: DepthPoint, a: DepthPoint) => {
      const key = `${b.condition}\u0000${a.condition}`;
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ kind: 'chunking', model: b.model, condition: b.condition, reference: a.condition });
    };
    for (const [i, corpusA] of corpora.entries()) {
      for (const corpusB of corpora.slice(i + 1)) {
        const inA = group.filter((p) => p.corpus === corpusA);
        const inB = group.filter((p) => p.corpus === corpusB);
        for (const a of inA.filter((p) => p.unit === 'contextTokens')) {
          const b = inB.find((p) => p.unit === 'contextTokens' && p.depth === a.depth);
          if (b) add(b, a);
        }
        const withTokens = (p: DepthPoint) => p.unit === 'k' && p.tokens !== undefined && p.tokens > 0;
        const candidates = inB.filter(withTokens).sort((x, y) => x.depth - y.depth);
        for (const a of inA.filter(withTokens).sort((x, y) => x.depth - y.depth)) {
          let nearest: DepthPoint | undefined;
          for (const b of candidates) if (!nearest || Math.abs(Math.log(b.tokens! / a.tokens!)) < Math.abs(Math.log(nearest.tokens! / a.tokens!))) nearest = b;
          if (nearest) add(nearest, a);
        }
      }
    }
  }
  return out;
}

/** A sweep's retriever label without its settings (`dense·maxSize=256` → `dense`). */
export const sweptRetriever = (label: string | null): string => (label ?? '').split(SWEEP_SEPARATOR)[0]!;

/**
 * The groups whose chunkings are compared, per model × strategy; a retriever a chunking sweep repeated
 * over corpora is compared only with itself, so a chunking comparison never also changes the retriever.
 */
function chunkingGroups(points: readonly DepthPoint[]): DepthPoint[][] {
  const corporaOf = new Map<string, Set<string>>();
  for (const p of points) {
    const key = `${p.model}\u0000${p.strategy}\u0000${sweptRetriever(p.retriever)}`;
    (corporaOf.get(key) ?? corporaOf.set(key, new Set()).get(key)!).add(p.corpus!);
  }
  return [
    ...groupBy(points, (p) => {
      const base = sweptRetriever(p.retriever);
      const swept = (corporaOf.get(`${p.model}\u0000${p.strategy}\u0000${base}`)?.size ?? 0) > 1;
      return `${p.model}\u0000${p.strategy}\u0000${swept ? base : ''}`;
    }).values(),
  ];
}
