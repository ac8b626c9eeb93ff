// A second process on one response cache file (the response-cache tests): reports whether it sees
// the key the parent wrote, then writes `count` responses one by one and `count` more in one putMany.
import { ResponseCache } from '../../src/generation/responseCache.js';

const [file, seen, countText] = process.argv.slice(2) as [string, string, string];
const count = Number(countText);
const cache = ResponseCache.open(file);
const sawParent = cache.get(seen)?.text ?? null;
for (let i = 0; i < count; i++) cache.put(`child-${i}`, 'child-model', { text: `child answer ${i}`, raw: `child answer ${i}` });
cache.putMany(Array.from({ length: count }, (_, i) => [`child-batch-${i}`, 'child-model', { text: `batch ${i}`, raw: `batch ${i}` }] as [string, string, { text: string; raw: string }]));
process.stdout.write(JSON.stringify({ sawParent, written: 2 * count }));
cache.close();
