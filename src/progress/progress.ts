import cliProgress from 'cli-progress';

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
  const started = Date.now();
  const describeExtra = () =>
    Object.entries(extra)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');

  if (stream.isTTY && !options.plain) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${options.label} [{bar}] {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted} {extra}`,
        stream,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: '0.0', extra: '' });
    return {
      tick(delta = 1, more) {
        done += delta;
        if (more) extra = { ...extra, ...more };
        const rate = done / Math.max(1e-3, (Date.now() - started) / 1000);
        bar.update(done, { rate: rate.toFixed(1), extra: describeExtra() });
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
  let lastPrint = 0;
  const print = (final: boolean) => {
    const elapsed = (Date.now() - started) / 1000;
    const rate = done / Math.max(1e-3, elapsed);
    const eta = total > 0 && rate > 0 ? formatDuration((total - done) / rate) : '?';
    const of = total > 0 ? `/${total}` : '';
    const tail = describeExtra();
    stream.write(
      `${options.label}: ${done}${of} ${unit}, ${rate.toFixed(1)}/s, ${final ? `done in ${formatDuration(elapsed)}` : `ETA ${eta}`}${tail ? `, ${tail}` : ''}\n`,
    );
  };
  return {
    tick(delta = 1, more) {
      done += delta;
      if (more) extra = { ...extra, ...more };
      const now = Date.now();
      if (now - lastPrint >= interval) {
        lastPrint = now;
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
