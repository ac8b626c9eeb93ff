import { existsSync, readdirSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExperimentConfig } from '../../src/config/experiment.js';
import { readCorpusManifest } from '../../src/runFiles/corpusFiles.js';
import { InputError } from '../../src/errors.js';
import { prepareArtefacts, type PrepareOptions } from '../../src/app/prepare.js';
import { readIndexManifest } from '../../src/runFiles/indexManifest.js';
import { runCli } from '../helpers/runCli.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-prepare-'));
  await writeFile(
    join(dir, 'source.jsonl'),
    ['{"id":"a","title":"科舉","text":"科舉是中國古代通過考試選拔官吏的制度。始於隋朝，廢於清末。"}', '{"id":"b","title":"進士","text":"進士是科舉殿試及第者的稱號。"}', ''].join('\n'),
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A prepare section: one JSON corpus and a bm25 index on it (no model needed). */
function config(maxSize = 500): ExperimentConfig {
  return {
    prepare: {
      corpora: [{ name: 'mini', builder: { name: 'json', input: join(dir, 'source.jsonl') }, out: join(dir, 'corpus'), chunking: { maxSize, unit: 'chars' } }],
      indexes: [{ out: join(dir, 'index'), corpus: join(dir, 'corpus'), retriever: 'bm25' }],
    },
  } as unknown as ExperimentConfig;
}

async function prepare(cfg: ExperimentConfig, options: Partial<PrepareOptions> = {}): Promise<string[]> {
  const lines: string[] = [];
  await prepareArtefacts(cfg, { log: (line) => lines.push(line), progress: false, ...options });
  return lines;
}

const addPassage = () => appendFile(join(dir, 'source.jsonl'), '{"id":"c","title":"狀元","text":"狀元是殿試第一名。"}\n');

describe('prepare rebuilds exactly what changed, and says why', () => {
  it('records the source hash and settings; with nothing changed nothing is rebuilt', async () => {
    await prepare(config());
    const corpus = await readCorpusManifest(join(dir, 'corpus'));
    expect(Object.keys(corpus.inputs!.files)).toEqual([join(dir, 'source.jsonl')]);
    expect(corpus.inputs!.settings).toMatchObject({ chunking: { maxSize: 500 } });
    const index = readIndexManifest(join(dir, 'index'));
    expect(await prepare(config())).toEqual([]);
    expect(readIndexManifest(join(dir, 'index'))!.createdAt).toBe(index!.createdAt);
  });

  it('an edited source file rebuilds the corpus and the index built on it, naming the file', async () => {
    await prepare(config());
    await addPassage();
    const lines = await prepare(config());
    expect(lines).toContain(`${join(dir, 'corpus')}: source file ${join(dir, 'source.jsonl')} changed; rebuilding`);
    expect(lines.some((line) => /index: built from an older version of .*corpus; rebuilding/.test(line))).toBe(true);
    expect((await readCorpusManifest(join(dir, 'corpus'))).counts.chunksWritten).toBe(3);
    expect(readIndexManifest(join(dir, 'index'))!.counts.chunks).toBe(3);
    expect(await prepare(config())).toEqual([]);
  });

  it('a changed chunking setting rebuilds the corpus, naming old and new value', async () => {
    await prepare(config(500));
    const lines = await prepare(config(256));
    expect(lines.some((line) => line.includes('chunking.maxSize 500 → 256; rebuilding'))).toBe(true);
    expect((await readCorpusManifest(join(dir, 'corpus'))).parameters).toMatchObject({ chunking: { maxSize: 256 } });
  });

  it('a changed index setting rebuilds only the index', async () => {
    await prepare(config());
    const edited = config();
    (edited.prepare!.indexes![0] as Record<string, unknown>).bm25 = { k1: 1.5 };
    const lines = await prepare(edited);
    expect(lines.some((line) => line.includes('bm25.k1 (unset) → 1.5; rebuilding'))).toBe(true);
    expect(lines.some((line) => line.startsWith('corpus mini') || line.startsWith(join(dir, 'corpus')))).toBe(false);
  });

  it('a corpus built before inputs were recorded is rebuilt once, saying so', async () => {
    await prepare(config());
    const manifestPath = join(dir, 'corpus', 'manifest.json');
    const { inputs: _inputs, ...old } = JSON.parse(await readFile(manifestPath, 'utf8'));
    await writeFile(manifestPath, JSON.stringify(old));
    const lines = await prepare(config());
    expect(lines.some((line) => line.includes('inputs unknown') && line.endsWith('; rebuilding'))).toBe(true);
    expect(await prepare(config())).toEqual([]);
  });

  it('--dry-run lists what would be rebuilt and builds nothing', async () => {
    await prepare(config());
    await addPassage();
    const lines = await prepare(config(), { dryRun: true });
    expect(lines.some((line) => line.startsWith('would rebuild') && line.includes('source file') && line.includes('source.jsonl changed'))).toBe(true);
    expect((await readCorpusManifest(join(dir, 'corpus'))).counts.chunksWritten).toBe(2);
  });

  it('--frozen refuses a stale artefact, naming the change, and builds nothing', async () => {
    await prepare(config());
    await addPassage();
    const refusal = await prepare(config(), { frozen: true }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as Error).message).toMatch(/--frozen: .*out of date[\s\S]*corpus: source file .*source\.jsonl changed/);
    expect((await readCorpusManifest(join(dir, 'corpus'))).counts.chunksWritten).toBe(2);
    // Everything current: --frozen lets the run through, building nothing.
    await prepare(config());
    expect(await prepare(config(), { frozen: true })).toEqual([]);
  });

  it('--frozen refuses a missing artefact too, naming it, and builds nothing', async () => {
    await prepare(config());
    await rm(join(dir, 'index'), { recursive: true });
    const refusal = await prepare(config(), { frozen: true }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as Error).message).toBe(`--frozen: 1 prepared artefact is missing or out of date and would be built; nothing was built:\n  missing: ${join(dir, 'index')}: not built yet`);
    expect(existsSync(join(dir, 'index'))).toBe(false);
  });
});

describe('hisrag run --frozen', () => {
  it('exits 2 naming the change, and leaves no run folder behind', async () => {
    const file = join(dir, 'exp.yaml');
    // The benchmark file exists (a missing one is refused first); --frozen refuses before it is read.
    await writeFile(join(dir, 'bench.json'), '[]');
    await writeFile(
      file,
      [
        'name: fresh',
        `output: ${join(dir, 'runs')}`,
        'prepare:',
        '  corpora:',
        `    - { name: mini, builder: { name: json, input: ${join(dir, 'source.jsonl')} }, out: ${join(dir, 'corpus')}, chunking: { maxSize: 500, unit: chars } }`,
        `benchmark: { name: prohist, file: ${join(dir, 'bench.json')} }`,
        'strategies: [closed-book]',
        'models: [{ name: extractive }]',
        '',
      ].join('\n'),
    );
    expect((await runCli(['prepare', file, '--no-progress'])).code).toBe(0);
    await addPassage();
    const result = await runCli(['run', file, '--frozen', '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--frozen:[\s\S]*source file .*source\.jsonl changed/);
    expect(existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : []).toEqual([]);
  }, 60_000);
});

describe('a generated model', () => {
  it('is regenerated when its seed changes, saying so, and left alone otherwise', async () => {
    const model = (seed: number) => ({ prepare: { fixtureModel: { out: join(dir, 'model'), seed, dim: 16 } } }) as unknown as ExperimentConfig;
    expect((await prepare(model(42)))[0]).toMatch(/^generating the fixture embedding model/);
    expect(await prepare(model(42))).toEqual([]);
    expect((await prepare(model(43)))[0]).toContain(': seed 42 → 43; regenerating the fixture embedding model');
  });
});
