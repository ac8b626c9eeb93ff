// Fallback graph-thread entry when the sources cannot be bundled (see src/corpus/wikipedia/workerScript.ts):
// on Node 20 a worker does not inherit its parent's tsx loader, so it registers tsx itself.
import { register } from 'tsx/esm/api';

register();
await import('./hnswlibWorker.ts');
