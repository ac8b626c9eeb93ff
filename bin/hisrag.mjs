#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm ci` or `npm run build`) when it was built from the
// sources as they are now; otherwise (no dist/, or a source file edited, added or removed since the
// build) the TypeScript sources through tsx, so that a stale build never runs. HISRAG_FROM_SOURCE=1
// forces the sources.
import { compiledIsCurrent } from './sourceStamp.mjs';

// Ctrl-C while the code loads exits 130 like every later interrupt (main installs the real handlers).
const early = () => process.exit(130);
process.on('SIGINT', early);
process.on('SIGTERM', early);
const compiled = process.env.HISRAG_FROM_SOURCE !== '1' && compiledIsCurrent(new URL('..', import.meta.url));
const { main } = compiled ? await import('../dist/cli/main.js') : await fromSource();
process.off('SIGINT', early);
process.off('SIGTERM', early);
process.exitCode = await main(process.argv);

async function fromSource() {
  const { register } = await import('tsx/esm/api');
  register();
  return import('../src/cli/main.ts');
}
