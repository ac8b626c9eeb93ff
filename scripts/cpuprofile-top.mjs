// Self time per function of a V8 .cpuprofile (node --cpu-prof), top N:
//   node scripts/cpuprofile-top.mjs <file.cpuprofile> [N = 30]
import { readFileSync } from 'node:fs';

const [file, top = '30'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// Sample i lasted timeDeltas[i + 1] µs; a node's self time is the sum over its samples.
const self = new Map();
profile.samples.forEach((id, i) => {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const key = `${functionName || '(anonymous)'}  ${url.replace(/^.*\/(node_modules|src|scripts)\//, '$1/')}:${lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
}
console.log(`${(total / 1000).toFixed(1).padStart(9)} ms total`);
