import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';

export interface DemoRuns {
  runs: string;
  demo: string;
  methods: string;
  noise: string;
}

/**
 * The runs `hisrag view` is tried on, made inside `dir` by the real CLI: `experiments/demo.yaml`
 * (closed-book and rag@10…100), `experiments/demo-methods.yaml` (every RAG method; `methodsLimit`
 * questions) and `experiments/demo-noise.yaml` (LongHisDoc pages with gold evidence; gold-first /
 * middle / last and BM25). Seconds each, offline.
 */
export async function makeDemoRuns(dir: string, options: { methodsLimit?: number } = {}): Promise<DemoRuns> {
  const runs = join(dir, 'runs');
  const demo = demoConfigIn(dir);
  const methods = demoConfigIn(dir, (c) => (c.benchmark.limit = options.methodsLimit ?? 6), 'demo-methods.yaml', 'demo-methods.yaml');
  const noise = parse(readFileSync(join(REPO_ROOT, 'experiments', 'demo-noise.yaml'), 'utf8'));
  noise.output = runs;
  noise.prepare.corpora[0].out = join(dir, 'pages');
  noise.prepare.indexes[0].out = join(dir, 'pages-bm25');
  noise.prepare.indexes[0].corpus = join(dir, 'pages');
  for (const retriever of noise.retrieval.retrievers) retriever.index = join(dir, 'pages-bm25');
  const noiseFile = join(dir, 'demo-noise.yaml');
  writeFileSync(noiseFile, stringify(noise));
  for (const [file, id] of [
    [demo, 'demo'],
    [methods, 'demo-methods'],
    [noiseFile, 'demo-noise'],
  ] as const) {
    const result = await runCli(['run', file, '--run-id', id, '--no-progress']);
    if (result.code !== 0) throw new Error(`hisrag run ${file}: exit ${result.code}\n${result.stderr}`);
  }
  return { runs, demo: join(runs, 'demo'), methods: join(runs, 'demo-methods'), noise: join(runs, 'demo-noise') };
}

/** The answer texts a malicious model or dataset could write. */
export const PAYLOADS = ['<img src=x onerror=alert(1)>', '</script><script>window.__xss = 1</script>', '<svg onload=alert(2)>'];

/**
 * A copy of a run whose answers, questions, passages and condition names carry script payloads: what
 * the viewer must show as text.
 */
export function maliciousCopy(runDir: string, into: string): string {
  mkdirSync(into, { recursive: true });
  for (const name of ['config.json', 'manifest.json', 'summary.json']) cpSync(join(runDir, name), join(into, name));
  const lines = readFileSync(join(runDir, 'items.jsonl'), 'utf8').trim().split('\n');
  const out = lines.map((line, i) => {
    const r = JSON.parse(line);
    const payload = PAYLOADS[i % PAYLOADS.length]!;
    r.response.text = `${payload} answer ${i}`;
    r.response.raw = r.response.text;
    r.question = `${r.question}${payload}`;
    r.groups = { ...r.groups, category: `${r.groups.category}<b>x</b>` };
    for (const chunk of r.retrieved) chunk.title = `${chunk.title}<img src=x onerror=alert(3)>`;
    return JSON.stringify(r);
  });
  writeFileSync(join(into, 'items.jsonl'), out.join('\n') + '\n');
  return into;
}
