// Worker entry: the sources are TypeScript run through tsx, and on Node 20 a worker does not
// inherit the loader hooks of its parent (nor honour `execArgv: ['--import', 'tsx']`), so the
// worker registers tsx itself before loading the real module.
import { register } from 'tsx/esm/api';

register();
await import('./parseWorker.ts');
