import { describe, expect, it } from 'vitest';
import { hisragInProcess } from '../helpers/cliInProcess.js';

describe('the CLI run many times in one process (a library user, the in-process tests)', () => {
  it('adds its listeners once, not once per call (the 11th would warn MaxListenersExceeded on stderr)', async () => {
    await hisragInProcess('--version');
    const listeners = { stdoutError: process.stdout.listenerCount('error'), sigint: process.listenerCount('SIGINT'), exit: process.listenerCount('exit') };
    for (let i = 0; i < 12; i++) expect((await hisragInProcess('--version')).code).toBe(0);
    expect({ stdoutError: process.stdout.listenerCount('error'), sigint: process.listenerCount('SIGINT'), exit: process.listenerCount('exit') }).toEqual(listeners);
  });
});
