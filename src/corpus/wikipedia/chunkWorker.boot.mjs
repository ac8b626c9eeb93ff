// Fallback worker entry when the sources cannot be bundled (see workerScript.ts): on Node 20 a
// worker does not inherit its parent's tsx loader, so it registers tsx itself (slower to start).
import { register } from 'tsx/esm/api';

register();
await import('./chunkWorker.ts');
