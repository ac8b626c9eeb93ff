// Writes experiments/data/demo-judge-labels.jsonl: the SYNTHETIC labels experiments/demo-judge.yaml
// imports (docs/scoring.md, "The judge-check demo").
//   node --import tsx scripts/generate-demo-judge-labels.ts [--size 8]
// It runs the demo-judge config (without its labels) into a temporary folder, draws the sample to
// label as `hisrag annotate --size N` does (the same questions under closed-book and rag@10, seeded by
// the config's seed), and marks each drawn answer with the plain lexical judge at the biased judge's
// threshold: the `lexical-overcredit` judge's verdicts without its over-credit. They stand in for a
// historian's marks, so the demo shows what the correction does; they are no person's reading.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { drawRunLabelSample, readRunForLabels } from '../src/app/labelSample.js';
import { benchmarks } from '../src/benchmarks/registry.js';
import { createLexicalJudge } from '../src/scoring/judges/lexical.js';
import { parseRubric, verdictKey } from '../src/scoring/rubric/parseRubric.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'experiments', 'data', 'demo-judge-labels.jsonl');
const at = process.argv.indexOf('--size');
const size = at > 0 ? Number(process.argv[at + 1]) : 8;

const config = parse(readFileSync(join(ROOT, 'experiments', 'demo-judge.yaml'), 'utf8'));
delete config.labels;
const dir = mkdtempSync(join(tmpdir(), 'demo-judge-labels-'));
config.output = dir;
const file = join(dir, 'demo-judge.yaml');
writeFileSync(file, stringify(config));
const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'hisrag.mjs'), 'run', file, '--run-id', 'labels', '--no-progress'], { cwd: ROOT, encoding: 'utf8' });
if (run.status !== 0) throw new Error(`hisrag run failed:\n${run.stderr}`);
const runDir = join(dir, 'labels');

const { sample } = await drawRunLabelSample(runDir, { size });
const { config: stored, records } = await readRunForLabels(runDir);
const byKey = new Map(records.map((r) => [r.key, r]));
const rubricText = new Map<string, string>();
for (const spec of stored.benchmarks) {
  for (const item of await (await benchmarks.create(spec as { name: string } & Record<string, unknown>, undefined)).load()) if (item.rubrics) rubricText.set(`${item.benchmark}:${item.id}`, item.rubrics);
}
const threshold = (stored.judge as { threshold?: number } | undefined)?.threshold ?? 0.5;
const lexical = createLexicalJudge({ threshold });
const lines: string[] = [];
for (const key of sample.keys) {
  const record = byKey.get(key)!;
  const text = rubricText.get(`${record.benchmark}:${record.itemId}`)!;
  const rubricItems = parseRubric(text, { compat: stored.scoring.compat });
  const outcome = await lexical.judge({ question: record.question, answer: record.response?.text ?? '', rubricText: text, rubricItems });
  if (!outcome.ok) throw new Error(`${key}: ${outcome.error}`);
  const verdicts = Object.fromEntries(rubricItems.map((item) => [verdictKey(item), outcome.verdicts[verdictKey(item)] ?? 0]));
  lines.push(JSON.stringify({ key, verdicts, note: `synthetic: lexical judge (threshold ${threshold}), scripts/generate-demo-judge-labels.ts` }));
}
writeFileSync(OUT, lines.join('\n') + '\n');
rmSync(dir, { recursive: true, force: true });
console.log(`wrote ${lines.length} synthetic labels (${sample.size} questions × ${sample.conditions.length} conditions, seed ${sample.seed}) to ${OUT}`);
