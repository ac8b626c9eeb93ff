import type cliProgressModule from 'cli-progress';
import { createRequire } from 'node:module';

/**
 * Progress for long work: items done / total, rate and ETA. On a TTY it draws a bar
 * (cli-progress); elsewhere (CI, logs, pipes) it prints a plain line at most every few seconds,
 * always to stderr so that stdout stays machine-readable.
 */
export interface ProgressReporter {
  /** Increase the done counter; `extra` fields (e.g. failures) appear in the line. */
  tick(delta?: number, extra?: Record<string, string | number>): void;
  setTotal(total: number): void;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  total?: number;
  unit?: string;
  /** Where to write; defaults to stderr. */
  stream?: NodeJS.WriteStream;
  /** Force the plain line mode (tests, non-TTY). */
  plain?: boolean;
  /** Disable entirely. */
  silent?: boolean;
  intervalMs?: number;
  /** Milliseconds now (tests pass a fake clock); `Date.now` by default. */
  clock?: () => number;
}

/** How many of the most recent finished items the rate is measured over. */
const RATE_WINDOW_ITEMS = 20;

/**
 * The pace of the work: items finished per second over the most recent `windowItems` finished
 * (all of them while fewer have finished), measured up to now, so a burst of quick items (cached
 * answers, closed-book before the RAG methods) is soon outweighed by the real pace, and a stall
 * lowers the rate instead of freezing it. The ETA is the items left at that rate.
 */
export class RateWindow {
  /** (time, items done by then), oldest first; the first is the start. */
  private readonly marks: { t: number; done: number }[];
  private done = 0;

  constructor(
    started: number,
    private readonly windowItems = RATE_WINDOW_ITEMS,
  ) {
    this.marks = [{ t: started, done: 0 }];
  }

  finished(count: number, now: number): void {
    if (count <= 0) return;
    this.done += count;
    this.marks.push({ t: now, done: this.done });
    // Keep the newest mark at least `windowItems` back (and the ones after it).
    while (this.marks.length > 2 && this.done - this.marks[1]!.done >= this.windowItems) this.marks.shift();
  }

  /** Items per second over the window, up to `now`; 0 before anything finished. */
  rate(now: number): number {
    const from = this.marks[0]!;
    const items = this.done - from.done;
    return items > 0 ? items / Math.max(1e-3, (now - from.t) / 1000) : 0;
  }

  /** Seconds until `total` at the current rate; NaN when unknown. */
  etaSeconds(total: number, now: number): number {
    const rate = this.rate(now);
    return total > 0 && rate > 0 ? Math.max(0, total - this.done) / rate : NaN;
  }
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

export function createProgress(options: ProgressOptions): ProgressReporter {
  if (options.silent) return { tick() {}, setTotal() {}, stop() {} };
  const stream = options.stream ?? process.stderr;
  const unit = options.unit ?? 'items';
  let total = options.total ?? 0;
  let done = 0;
  let extra: Record<string, string | number> = {};
  const now = options.clock ?? Date.now;
  const started = now();
  const pace = new RateWindow(started);
  const describeExtra = () =>
    Object.entries(extra)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  /** Counts finished items (and their `extra` fields); gives the time they were counted at. */
  const advance = (delta: number, more?: Record<string, string | number>) => {
    done += delta;
    if (more) extra = { ...extra, ...more };
    const t = now();
    pace.finished(delta, t);
    return t;
  };

  if (stream.isTTY && !options.plain) {
    // Required for the first bar drawn: plain lines, silent progress and a dry run load none of it.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
    const bar = new cliProgress.SingleBar(
      {
        format: `${options.label} [{bar}] {value}/{total} ${unit} | {rate}/s | ETA {eta} {extra}`,
        stream,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: '0.0', eta: '?', extra: '' });
    return {
      tick(delta = 1, more) {
        const t = advance(delta, more);
        bar.update(done, { rate: pace.rate(t).toFixed(1), eta: formatDuration(pace.etaSeconds(total, t)), extra: describeExtra() });
      },
      setTotal(n) {
        total = n;
        bar.setTotal(n);
      },
      stop() {
        bar.stop();
      },
    };
  }

  const interval = options.intervalMs ?? 5000;
  let lastPrint = -Infinity;
  const print = (final: boolean) => {
    const t = now();
    const elapsed = (t - started) / 1000;
    // The final line's rate is the whole run's; the running one is the recent pace.
    const rate = final ? done / Math.max(1e-3, elapsed) : pace.rate(t);
    const eta = formatDuration(pace.etaSeconds(total, t));
    const of = total > 0 ? `/${total}` : '';
    const tail = describeExtra();
    stream.write(
      `${options.label}: ${done}${of} ${unit}, ${rate.toFixed(1)}/s, ${final ? `done in ${formatDuration(elapsed)}` : `ETA ${eta}`}${tail ? `, ${tail}` : ''}\n`,
    );
  };
  return {
    tick(delta = 1, more) {
      const t = advance(delta, more);
      if (t - lastPrint >= interval) {
        lastPrint = t;
        print(false);
      }
    },
    setTotal(n) {
      total = n;
    },
    stop() {
      print(true);
    },
  };
}
