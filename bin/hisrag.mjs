#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx, so a fresh clone needs no build step.

// Ctrl-C while the sources load exits 130 like every later interrupt (main installs the real handlers).
const early = () => process.exit(130);
process.on('SIGINT', early);
process.on('SIGTERM', early);
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../src/cli/main.ts');
process.off('SIGINT', early);
process.off('SIGTERM', early);
process.exitCode = await main(process.argv);
