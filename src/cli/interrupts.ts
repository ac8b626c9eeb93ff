import { InterruptedError } from '../errors.js';
import { removePendingTempFiles } from '../io/atomicWrite.js';

/**
 * One Ctrl-C policy for every command. A command that can stop cleanly asks for
 * `gracefulStop()`: the first SIGINT/SIGTERM then aborts its signal (with an InterruptedError
 * as the reason) and the command stops at its next safe point, keeping what it has written;
 * a second signal quits at once. Commands that hold nothing worth finishing quit at the first
 * signal. Either way the exit code is 130 and no temporary file of an atomic write is left.
 */
const controller = new AbortController();
let gracefulHolders = 0;
let installed = false;

function onSignal(signal: NodeJS.Signals): void {
  if (gracefulHolders > 0 && !controller.signal.aborted) {
    process.stderr.write(`\nhisrag: ${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping at the next safe point (again to quit at once)\n`);
    controller.abort(new InterruptedError(`interrupted (${signal})`));
    return;
  }
  removePendingTempFiles();
  process.exit(130);
}

/** Installs the SIGINT/SIGTERM handlers once per process (the CLI's entry point calls it). */
export function installInterruptHandlers(): void {
  if (installed) return;
  installed = true;
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A kill that bypasses the handlers (process.exit elsewhere) still cleans up temp files.
  process.on('exit', removePendingTempFiles);
}

/** True once the user has asked to stop. */
export function interrupted(): boolean {
  return controller.signal.aborted;
}

/** The signal a command passes down to stop at its next safe point; call `release` when done. */
export function gracefulStop(): { signal: AbortSignal; release: () => void } {
  gracefulHolders++;
  let released = false;
  return {
    signal: controller.signal,
    release: () => {
      if (!released) gracefulHolders--;
      released = true;
    },
  };
}
