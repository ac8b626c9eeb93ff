import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateExperimentConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { runCli } from '../helpers/runCli.js';

// Hand-written configs run through the real CLI: what a user sees (exit code, the lines printed, the
// files left) when a baseline is relabelled or misnamed, labels are not ASCII, --frozen meets an
// artefact never built, a gold id is missing from several indexes, or a data file is missing.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-refusals-'));
  await writeFile(
    join(dir, 'source.jsonl'),
    [
      '{"id":"a","title":"科舉","text":"科舉是中國古代通過考試選拔官吏的制度。始於隋朝，廢於清末。"}',
      '{"id":"b","title":"進士","text":"進士是科舉殿試及第者的稱號。"}',
      '{"id":"c","title":"狀元","text":"狀元是殿試第一名。"}',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'bench.jsonl'),
    [
      { id: 'q1', question: '何謂進士？', answer: '進士是科舉殿試及第者的稱號', gold_chunk_ids: ['mini:b:0'] },
      { id: 'q2', question: '科舉始於何朝？', answer: '科舉始於隋朝', gold_chunk_ids: ['mini:a:0'] },
      { id: 'q3', question: '何謂狀元？', answer: '狀元是殿試第一名', gold_chunk_ids: ['mini:c:0'] },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  // Built once; the configs below name this corpus and index (a prepare section of their own where they test it).
  const prepared = await writeConfig('prepared', ['strategies: [closed-book]']);
  expect((await runCli(['prepare', prepared, '--no-progress'])).code).toBe(0);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The prepare section of the corpus and index(es) the configs share (`INDEX`, `CORPUS`, `SOURCE` filled in by writeConfig). */
const prepareLines = (indexes = '[{ out: INDEX, corpus: CORPUS, retriever: bm25 }]') => [
  'prepare:',
  '  corpora:',
  '    - { name: mini, builder: { name: json, input: SOURCE }, out: CORPUS, chunking: { maxSize: 500, unit: chars } }',
  `  indexes: ${indexes}`,
];

/** A config file: name, output folder, the prepared corpus and index, the benchmark, one offline model, and `lines`. */
async function writeConfig(name: string, lines: string[], options: { prepare?: boolean; benchmark?: string; indexes?: string } = {}): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  const fill = (line: string) => line.replace(/SOURCE/g, join(dir, 'source.jsonl')).replace(/CORPUS/g, join(dir, 'corpus')).replace(/INDEX/g, join(dir, 'index'));
  await writeFile(
    file,
    [
      `name: ${name}`,
      `output: ${join(dir, 'runs', name)}`,
      ...(options.prepare === false ? [] : prepareLines(options.indexes).map(fill)),
      `benchmark: { name: jsonl, file: ${options.benchmark ?? join(dir, 'bench.jsonl')} }`,
      'models: [{ name: extractive }]',
      'scoring: { bootstrapResamples: 200 }',
      ...lines.map(fill),
      '',
    ].join('\n'),
  );
  return file;
}

const runFolders = (name: string) => (existsSync(join(dir, 'runs', name)) ? readdirSync(join(dir, 'runs', name)) : []);

async function onlyRun(name: string): Promise<string> {
  const folders = runFolders(name);
  expect(folders).toHaveLength(1);
  return join(dir, 'runs', name, folders[0]!);
}

describe('the baseline always resolves', () => {
  it('a relabelled closed-book is the baseline: every Δ present, and every output names it by its label', async () => {
    const file = await writeConfig('relabelled', ['retrieval: { retriever: { name: bm25, index: INDEX }, k: [1, 2] }', 'strategies: [{ name: closed-book, label: 闭卷 }, rag]']);
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Δ vs 闭卷 [95% CI]');
    expect(result.stdout).not.toContain('Δ vs closed-book');
    expect(result.stdout).toContain('baseline: 闭卷 (the closed-book strategy, labelled 闭卷)');
    const runDir = await onlyRun('relabelled');
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8')) as { baseline: string; paired: { condition: string; baseline: string; meanDiff: number | null }[] };
    expect(summary.baseline).toBe('闭卷');
    // Three questions answered under both: each of the two RAG conditions has its difference.
    expect(summary.paired.map((d) => [d.condition, d.baseline])).toEqual([
      ['rag@1', '闭卷'],
      ['rag@2', '闭卷'],
    ]);
    for (const d of summary.paired) expect(d.meanDiff).not.toBeNull();
    const stored = JSON.parse(await readFile(join(runDir, 'config.json'), 'utf8')) as { scoring: { baseline: string } };
    expect(stored.scoring.baseline).toBe('闭卷');
    const report = await readFile(join(runDir, 'report.html'), 'utf8');
    expect(report).toContain('Δ vs 闭卷');
    expect(report).not.toContain('Δ vs closed-book');
  }, 120_000);

  it('a baseline that is no condition is refused before anything runs: exit 2, the conditions, a did-you-mean, no run folder', async () => {
    const file = await writeConfig('misnamed', ['retrieval: { retriever: { name: bm25, index: INDEX }, k: [1] }', 'strategies: [closed-book, rag]']);
    await writeFile(file, (await readFile(file, 'utf8')).replace('scoring: { bootstrapResamples: 200 }', 'scoring: { bootstrapResamples: 200, baseline: closedbook }'));
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('scoring.baseline: "closedbook" is not a condition of this run (its conditions: closed-book, rag@1); did you mean "closed-book"?');
    expect(result.stdout).not.toMatch(/questions ×/);
    expect(runFolders('misnamed')).toEqual([]);
  }, 60_000);

  it('a versus condition that is no condition is refused the same way', async () => {
    const file = await writeConfig('versus', ['retrieval: { retriever: { name: bm25, index: INDEX }, k: [1] }', 'strategies: [closed-book, rag]']);
    await writeFile(file, (await readFile(file, 'utf8')).replace('scoring: { bootstrapResamples: 200 }', 'scoring: { bootstrapResamples: 200, versus: [rag@5] }'));
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('scoring.versus[0]: "rag@5" is not a condition of this run (its conditions: closed-book, rag@1); did you mean "rag@1"?');
    expect(runFolders('versus')).toEqual([]);
  }, 60_000);

  it('two relabelled closed-books are ambiguous: refused, naming both', async () => {
    const file = await writeConfig('ambiguous', ['strategies: [{ name: closed-book, label: 甲 }, { name: closed-book, label: 乙 }]'], { prepare: false });
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('scoring.baseline: "closed-book" names no condition, and 2 conditions run the closed-book strategy (甲, 乙); set scoring.baseline to one of them');
    expect(runFolders('ambiguous')).toEqual([]);
  }, 60_000);

  it('the dry run refuses a misnamed baseline too', async () => {
    const file = await writeConfig('dry', ['strategies: [closed-book]'], { prepare: false });
    await writeFile(file, (await readFile(file, 'utf8')).replace('scoring: { bootstrapResamples: 200 }', 'scoring: { bootstrapResamples: 200, baseline: rag@10 }'));
    const result = await runCli(['run', file, '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('scoring.baseline: "rag@10" is not a condition of this run (its conditions: closed-book)');
  }, 60_000);

  it('a grid without closed-book takes its first condition, and says so', async () => {
    const file = await writeConfig('no-closed-book', ['retrieval: { retriever: { name: bm25, index: INDEX }, k: [1, 2] }', 'strategies: [rag]']);
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("baseline: rag@1 (no closed-book condition: the grid's first; set scoring.baseline to choose another)");
    expect(result.stdout).toContain('Δ vs rag@1 [95% CI]');
    const summary = JSON.parse(await readFile(join(await onlyRun('no-closed-book'), 'summary.json'), 'utf8')) as { baseline: string; paired: { condition: string }[] };
    expect(summary.baseline).toBe('rag@1');
    expect(summary.paired.map((d) => d.condition)).toEqual(['rag@2']);
  }, 120_000);
});

describe('one naming rule for every label', () => {
  const base = () => ({
    name: 'labels',
    benchmarks: [{ name: 'jsonl', file: 'bench.jsonl', label: '史料问答' }],
    retrieval: { retrievers: [{ name: 'bm25', index: 'index', label: '稠密检索' }], k: [1] },
    strategies: [{ name: 'rag', label: '检索增强' }, { name: 'closed-book', label: '闭卷' }],
    models: [{ name: 'extractive', label: '抽取模型' }],
    prepare: { corpora: [{ name: '史料', builder: { name: 'json', input: 'x.jsonl' } }] },
  });

  it('accepts letters and digits of any script in every label', () => {
    const config = validateExperimentConfig(base(), 'labels.yaml');
    expect(config.retrieval!.retrievers[0]!.label).toBe('稠密检索');
    expect(config.models![0]!.label).toBe('抽取模型');
  });

  it('refuses a label with a space in every kind of label, with one message', () => {
    const bad = 'dense retriever';
    const places: [string, (c: ReturnType<typeof base>) => void][] = [
      ['retrieval.retrievers[0].label', (c) => (c.retrieval.retrievers[0]!.label = bad)],
      ['strategies[0].label', (c) => (c.strategies[0]!.label = bad)],
      ['models[0].label', (c) => (c.models[0]!.label = bad)],
      ['benchmarks[0].label', (c) => (c.benchmarks[0]!.label = bad)],
      ['prepare.corpora[0].name', (c) => (c.prepare.corpora[0]!.name = bad)],
    ];
    for (const [field, spoil] of places) {
      const config = base();
      spoil(config);
      const error = (() => {
        try {
          validateExperimentConfig(config, 'labels.yaml');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, field).toBeInstanceOf(ConfigError);
      expect((error as Error).message, field).toContain(`${field}: expected a label: letters or digits of any script (稠密检索, bm25), joined by "_", "-", ".", "+", "=" or "·"`);
    }
  });

  it('a retriever labelled 稠密检索 runs, its label in the condition names', async () => {
    const file = await writeConfig('unicode-retriever', [
      'retrieval: { retrievers: [{ name: bm25, index: INDEX, label: 稠密检索 }, { name: bm25, index: INDEX, label: bm25 }], k: [1] }',
      'strategies: [closed-book, rag]',
    ]);
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('稠密检索/rag@1');
  }, 120_000);
});

describe('--frozen builds nothing', () => {
  it('a chunking point never built (maxSize 120 → 120, 90) is refused, exit 2, naming it and why; nothing is built and no run folder is left', async () => {
    const sweep = (sizes: string) => [
      'prepare:',
      '  corpora:',
      `    - { name: sweep, builder: { name: json, input: SOURCE }, out: ${join(dir, 'sweep')}, chunking: { maxSize: ${sizes}, unit: chars } }`,
      `  indexes: [{ out: ${join(dir, 'sweep-index')}, corpus: ${join(dir, 'sweep')}, retriever: bm25 }]`,
      `retrieval: { retriever: { name: bm25, index: ${join(dir, 'sweep-index')} }, k: [1] }`,
      'strategies: [closed-book, rag]',
    ];
    expect((await runCli(['prepare', await writeConfig('frozen', sweep('[120]'), { prepare: false }), '--no-progress'])).code).toBe(0);
    const before = readdirSync(dir).filter((f) => f.startsWith('sweep')).sort();
    expect(before).toEqual(expect.arrayContaining(['sweep·maxSize=120', 'sweep-index·maxSize=120']));
    expect(before.some((f) => f.includes('maxSize=90'))).toBe(false);
    const result = await runCli(['run', await writeConfig('frozen', sweep('[120, 90]'), { prepare: false }), '--frozen', '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--frozen: 2 prepared artefacts are missing or out of date and would be built; nothing was built:');
    expect(result.stderr).toContain(`missing: ${join(dir, 'sweep')}·maxSize=90: not built yet`);
    expect(result.stderr).toContain(`missing: ${join(dir, 'sweep-index')}·maxSize=90: not built yet`);
    expect(result.stderr).not.toContain('maxSize=120');
    expect(readdirSync(dir).filter((f) => f.startsWith('sweep')).sort()).toEqual(before);
    expect(runFolders('frozen')).toEqual([]);
  }, 90_000);

  it('with everything built, --frozen runs', async () => {
    const file = await writeConfig('frozen-ok', ['retrieval: { retriever: { name: bm25, index: INDEX }, k: [1] }', 'strategies: [closed-book, rag]']);
    const result = await runCli(['run', file, '--frozen', '--no-progress']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);
});

describe('messages count what they say', () => {
  it('one bad gold id on one line is one question, however many indexes lack it', async () => {
    const bench = join(dir, 'one-bad.jsonl');
    await writeFile(
      bench,
      [
        { id: 'q1', question: '何謂進士？', answer: '殿試及第者', gold_chunk_ids: ['mini:b:0'] },
        { id: 'q2', question: '何謂科舉？', answer: '考試選官', gold_chunk_ids: ['mini:a:0', 'mini:zz:9'] },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const file = await writeConfig(
      'gold',
      [`retrieval: { retrievers: [{ name: bm25, index: INDEX, label: one }, { name: bm25, index: ${join(dir, 'index2')}, label: two }], k: [1] }`, 'strategies: [closed-book, rag]'],
      { benchmark: bench, indexes: `[{ out: INDEX, corpus: CORPUS, retriever: bm25 }, { out: ${join(dir, 'index2')}, corpus: CORPUS, retriever: bm25 }]` },
    );
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('benchmark: 1 question names gold chunks that are not in the indexes:');
    expect(result.stderr).toContain(`${bench}: line 2: gold_chunk_ids: "mini:zz:9" not in ${join(dir, 'index')}, ${join(dir, 'index2')} (question q2)`);
    expect(runFolders('gold')).toEqual([]);
  }, 120_000);

  it('a missing benchmark file names its config field and path, before anything is built', async () => {
    const missing = join(dir, 'no-such-bench.jsonl');
    const file = await writeConfig('no-bench', ['strategies: [closed-book]'], { prepare: false, benchmark: missing });
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`benchmark.file: ${missing}: no such file`);
    expect(runFolders('no-bench')).toEqual([]);
  }, 60_000);

  it("a missing corpus source names its config field once, though a chunking sweep's two corpora read it", async () => {
    const missing = join(dir, 'no-such-source.jsonl');
    const file = await writeConfig(
      'no-source',
      [
        'prepare:',
        '  corpora:',
        `    - { name: lost, builder: { name: json, input: ${missing} }, out: ${join(dir, 'lost')}, chunking: { maxSize: [100, 200], unit: chars } }`,
        'strategies: [closed-book]',
      ],
      { prepare: false },
    );
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr.match(/no such file or folder/g)).toHaveLength(1);
    expect(result.stderr).toContain(`prepare.corpora[0].builder.input (corpus lost·maxSize=100): ${missing}: no such file or folder`);
    expect(readdirSync(dir).filter((f) => f.startsWith('lost'))).toEqual([]);
  }, 60_000);
});

describe('no header names a baseline that is not there', () => {
  it('a summary whose baseline is no condition of it gets no Δ column, and a line that says why', async () => {
    const { parseRunSummary } = await import('../../src/runFiles/summaryFile.js');
    const { summaryTable } = await import('../../src/report/table.js');
    const file = join(import.meta.dirname, '..', 'data', 'old-run-demo-samples', 'summary.json');
    const summary = parseRunSummary(file, await readFile(file, 'utf8'));
    // As written: closed-book is one of its conditions, and heads the Δ column.
    expect(summaryTable(summary)).toContain('Δ vs closed-book [95% CI]');
    // Relabelled after the fact (a summary written before baselines were resolved): the name is nowhere in its cells.
    const relabelled = { ...summary, cells: summary.cells.map((c) => (c.condition === 'closed-book' ? { ...c, condition: '闭卷' } : c)) };
    const table = summaryTable(relabelled);
    expect(table).not.toMatch(/Δ vs closed-book/);
    expect(table).toContain('no Δ column: the baseline closed-book is not a condition of this run');
  });
});
