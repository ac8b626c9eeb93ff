import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importLogger } from '../helpers/importLogger.js';
import { REPO_ROOT } from '../helpers/runCli.js';

/**
 * Checking a config and planning it import the components' schemas only: an implementation is
 * imported when a component is created. The demo names closed-book and rag, the extractive model,
 * an hnsw retriever over a wikipedia-dump corpus, the prohist benchmark, the lexical judge and the
 * rules extractor; its dry run creates those and nothing else.
 */

/** The implementation modules (under src/, without extension) the demo's dry run creates components from. */
const DEMO_IMPLEMENTATIONS = [
  'benchmarks/prohist/loader',
  // The freshness check of the prepared corpus asks the builder for its input files.
  'corpus/wikipedia/builder',
  // The query embedder the demo's index names (the plan retrieves each question's passages).
  'embedding/transformersEmbedder',
  'generation/extractive',
  'prompting/strategies/noRetrieval',
  'prompting/strategies/rag',
  'retrieval/retrievers/hnsw',
  'scoring/extractors/rules',
  'scoring/judges/lexical',
];

/** Implementations of components the demo does not name (a sample from every registry, by path). */
const UNUSED_IMPLEMENTATIONS = [
  'generation/openai',
  'generation/pageReader',
  'methods/agent',
  'methods/crag',
  'methods/ircot',
  'methods/langchainRunnable',
  'methods/compress',
  'retrieval/retrievers/bm25',
  'retrieval/retrievers/lancedb',
  'retrieval/retrievers/langchainHnswlib',
  'retrieval/retrievers/langchainLancedb',
  'rerank/crossEncoderReranker',
  'rerank/llmListwiseReranker',
  'embedding/openaiEmbedder',
  'embedding/clipEmbedder',
  'corpus/mediawiki/builder',
  'corpus/longhisdoc/builder',
  'benchmarks/longhisdoc/loader',
  'scoring/judges/llm',
  'scoring/extractors/llm',
];

/**
 * Libraries only components the demo does not name use: LLM clients, LangChain's chains, agents,
 * stores and tracing, LanceDB and Arrow, the wikitext parser; and what an index loads only for the
 * searches the demo's hnsw index does not make: jieba (BM25) and onnx-proto (exact search's matrix
 * product). (The demo's embedder is a LangChain `Embeddings`: `@langchain/core`'s embeddings module loads.)
 */
const UNUSED_PACKAGES = /node_modules\/(@langchain\/(openai|community|langgraph|classic)|@langchain\/core\/dist\/(retrievers|runnables|messages|language_models)|langchain|langsmith|openai|@lancedb|apache-arrow|wtf_wikipedia|@node-rs\/jieba|onnx-proto)\//;

/**
 * The model runtime of the demo's embedder: transformers.js, onnxruntime and sharp. A dry run that has
 * planned the same questions before takes their query vectors from its cache and loads none of it.
 */
const EMBEDDING_RUNTIME = /node_modules\/(@huggingface\/transformers|onnxruntime-node|onnxruntime-common|sharp)\//;

/** Every module a registry's entries import with `import('./…')`: the implementations, loaded when a component is created. */
function registeredImplementations(): string[] {
  const files = readdirSync(join(REPO_ROOT, 'src'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name === 'registry.ts');
  return files.flatMap((entry) => {
    const dir = entry.parentPath;
    const text = readFileSync(join(dir, entry.name), 'utf8');
    // Entries load with `async () => (await import('./…'))…` or a shared `() => import('./…')`; not an awaited helper (`= await import`).
    return [...text.matchAll(/(?<!= await )import\('(\.\/[^']+)\.js'\)/g)].map((m) => relative(join(REPO_ROOT, 'src'), join(dir, m[1]!)));
  });
}

/** `src/foo/bar.ts` or `dist/foo/bar.js` → `foo/bar`; undefined outside the project's code. */
function projectModule(url: string): string | undefined {
  const match = /\/(?:src|dist)\/(.+)\.(?:ts|js)$/.exec(url.startsWith('file://') ? new URL(url).pathname : url);
  return match && !url.includes('/node_modules/') && url.startsWith(`file://${REPO_ROOT}`) ? match[1] : undefined;
}

describe('hisrag run --dry-run imports the schemas of every component and the implementations of those it creates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-lazy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the compiled CLI prints the demo plan without loading an unused implementation or its libraries', () => {
    // Built artefacts first (a fresh checkout builds the corpus and index: those loads are not the check's).
    const prepare = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/hisrag.mjs'), 'prepare', 'experiments/demo.yaml', '--no-progress'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(prepare.status, prepare.stderr).toBe(0);
    // A first dry run fills the query vector cache (if no earlier one did): the one checked plans with it warm.
    const first = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/hisrag.mjs'), 'run', 'experiments/demo.yaml', '--dry-run'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(first.status, first.stderr).toBe(0);
    const log = join(dir, 'imports.txt');
    writeFileSync(log, '');
    const result = spawnSync(process.execPath, ['--import', importLogger(log, { required: true }), join(REPO_ROOT, 'bin/hisrag.mjs'), 'run', 'experiments/demo.yaml', '--dry-run'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, HISRAG_FROM_SOURCE: '0' },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/extractive-baseline +rag@100/);
    expect(result.stdout).toBe(first.stdout);
    const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // The compiled code ran (what a user runs), not the sources through tsx.
    expect(loaded.some((url) => url.includes('/dist/cli/main.js'))).toBe(true);
    const modules = new Set(loaded.map(projectModule).filter((m): m is string => m !== undefined));

    expect(UNUSED_IMPLEMENTATIONS.filter((m) => modules.has(m))).toEqual([]);
    expect([...new Set(loaded.filter((url) => UNUSED_PACKAGES.test(url)).map((url) => UNUSED_PACKAGES.exec(url)![1]))]).toEqual([]);
    expect([...new Set(loaded.filter((url) => EMBEDDING_RUNTIME.test(url)).map((url) => EMBEDDING_RUNTIME.exec(url)![1]))]).toEqual([]);
    // Of all registered implementations, exactly those of the demo's components.
    const implementations = [...new Set(registeredImplementations())];
    expect(implementations.length).toBeGreaterThan(50);
    expect(implementations.filter((m) => modules.has(m)).sort()).toEqual(DEMO_IMPLEMENTATIONS);
  }, 120_000);

  it('the claim registries (diagnostics) create the offline stand-ins without loading the LLM claim code or its clients', () => {
    const log = join(dir, 'claims.txt');
    writeFileSync(log, '');
    const registry = pathToFileURL(join(REPO_ROOT, 'dist/diagnostics/claims/registry.js')).href;
    const script = `const { claimExtractors, claimCheckers } = await import(${JSON.stringify(registry)});
      await claimExtractors.create({ name: 'sentences' });
      await claimCheckers.create({ name: 'lexical' });`;
    const result = spawnSync(process.execPath, ['--import', importLogger(log, { required: true }), '--input-type=module', '-e', script], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const modules = new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean).map(projectModule));
    expect(modules.has('diagnostics/claims/standIns')).toBe(true);
    expect(modules.has('diagnostics/claims/llm')).toBe(false);
    expect(modules.has('generation/openai')).toBe(false);
    const packages = readFileSync(log, 'utf8').split('\n').filter((url) => UNUSED_PACKAGES.test(url));
    expect([...new Set(packages.map((url) => UNUSED_PACKAGES.exec(url)![1]))]).toEqual([]);
  }, 60_000);
});
