/** A scored label. */
export interface Scored {
  label: number;
  score: number;
}

/** Best first, ties by the smaller label. */
export const byScore = (a: Scored, b: Scored) => b.score - a.score || a.label - b.label;

/**
 * Keeps the k best (highest score) of a stream with a binary min-heap: O(n log k) time, O(k) memory.
 * Ties are broken by the smaller label, so rankings are deterministic.
 */
export class TopK {
  private readonly heap: Scored[] = [];

  constructor(readonly k: number) {}

  /** Lowest score still kept, or -Infinity while the heap is not full. */
  get threshold(): number {
    return this.heap.length < this.k ? -Infinity : this.heap[0]!.score;
  }

  push(label: number, score: number): void {
    if (this.k <= 0) return;
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push({ label, score });
      this.siftUp(heap.length - 1);
    } else if (heap[0]!.score < score || (heap[0]!.score === score && heap[0]!.label > label)) {
      heap[0] = { label, score };
      this.siftDown(0);
    }
  }

  /** Best first. */
  sorted(): Scored[] {
    return [...this.heap].sort(byScore);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && worse(heap[l]!, heap[min]!)) min = l;
      if (r < heap.length && worse(heap[r]!, heap[min]!)) min = r;
      if (min === i) return;
      [heap[i], heap[min]] = [heap[min]!, heap[i]!];
      i = min;
    }
  }
}

/** a ranks below b: lower score, or equal score and larger label. */
function worse(a: Scored, b: Scored): boolean {
  return a.score < b.score || (a.score === b.score && a.label > b.label);
}
