import { describe, expect, it } from 'vitest';
import { createProgress, RateWindow } from '../../src/progress/progress.js';

/** A stream that keeps what is written (not a TTY: the plain line mode). */
function capture() {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (text: string) => lines.push(text.trimEnd()) } as unknown as NodeJS.WriteStream;
  return { lines, stream };
}

describe('progress ETA from the recent pace', () => {
  it('is not fooled by a burst of quick items before the slow ones', () => {
    // 100 answers: 40 closed-book ones finish in the first second, then one RAG answer every 2 s.
    let clock = 0;
    const { lines, stream } = capture();
    const progress = createProgress({ label: 'answers', total: 100, stream, intervalMs: 0, clock: () => clock });
    for (let i = 1; i <= 40; i++) {
      clock = i * 25;
      progress.tick(1);
    }
    for (let i = 1; i <= 20; i++) {
      clock = 1000 + i * 2000;
      progress.tick(1);
    }
    // The last 20 answers took 40 s: 0.5 per second, 40 left → 80 s (the average since the start, 60 in 41 s, would say 27 s).
    expect(lines.at(-1)).toBe('answers: 60/100 items, 0.5/s, ETA 1m20s');
    clock = 100_000;
    progress.stop();
    expect(lines.at(-1)).toBe('answers: 60/100 items, 0.6/s, done in 1m40s');
  });

  it('slows down while nothing finishes, and counts batches of items', () => {
    const pace = new RateWindow(0, 10);
    expect(pace.rate(5000)).toBe(0);
    expect(Number.isNaN(pace.etaSeconds(100, 5000))).toBe(true);
    pace.finished(10, 1000);
    expect(pace.rate(1000)).toBe(10);
    expect(pace.etaSeconds(100, 1000)).toBe(9);
    // A stall: no item for 9 s, so the rate measured up to now falls.
    expect(pace.rate(10_000)).toBe(1);
    pace.finished(5, 11_000);
    pace.finished(5, 12_000);
    // The window is the last 10 items: those finished after the mark at 1 s (10 in 11 s).
    expect(pace.rate(12_000)).toBeCloseTo(10 / 11, 10);
    expect(pace.etaSeconds(20, 12_000)).toBe(0);
  });
});

describe('progress on a terminal', () => {
  it('draws a cli-progress bar with the label, count and unit', () => {
    const written: string[] = [];
    const stream = { isTTY: true, columns: 120, write: (text: string) => (written.push(text), true), on: () => stream, removeListener: () => stream } as unknown as NodeJS.WriteStream;
    const progress = createProgress({ label: 'embedding', total: 4, unit: 'texts', stream });
    progress.tick(3);
    progress.stop();
    expect(written.join('')).toMatch(/embedding \[[█░]+\] 3\/4 texts/);
  });
});
