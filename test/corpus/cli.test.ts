import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerCorpusCommands } from '../../src/cli/commands/corpus.js';
import { readCorpusManifest } from '../../src/runFiles/corpusFiles.js';
import { DataFileError, InputError } from '../../src/errors.js';

const fixtures = join(import.meta.dirname, 'fixtures');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-cli-'));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<void> {
  const program = new Command('hisrag').exitOverride();
  registerCorpusCommands(program);
  await program.parseAsync(['node', 'hisrag', ...args]);
}

describe('hisrag corpus build', () => {
  it('builds a one-off corpus from flags', async () => {
    const out = join(dir, 'flags');
    await run('corpus', 'build', '--builder', 'wikipedia-dump', '--input', join(fixtures, 'mini-dump.xml'), '--out', out, '--max-size', '50', '--workers', '0', '--no-progress', '--set', 'minLength=5');
    const manifest = await readCorpusManifest(out);
    expect(manifest).toMatchObject({ name: 'flags', builder: 'wikipedia-dump', parameters: { chunking: { maxSize: 50 } } });
    expect(manifest.parameters.builder).toMatchObject({ workers: 0, minLength: 5 });
  });

  it('builds one point of an experiment config\'s chunking sweep, named by its settings', async () => {
    const config = join(dir, 'sweep.yaml');
    await writeFile(join(dir, 'sweep-poems.json'), JSON.stringify([{ id: 1, title: '詩', text: '一句。二句。三句。' }]));
    await writeFile(config, `name: sweep\nprepare:\n  corpora:\n    - name: poems\n      out: ${join(dir, 'sweep')}\n      builder: { name: json, input: ${join(dir, 'sweep-poems.json')} }\n      chunking: { maxSize: [3, 6] }\n`);
    await expect(run('corpus', 'build', config)).rejects.toThrow('prepare.corpora lists 2 corpora (poems·maxSize=3, poems·maxSize=6); choose one with --name');
    await run('corpus', 'build', config, '--name', 'poems·maxSize=6', '--no-progress');
    const manifest = await readCorpusManifest(join(dir, 'sweep·maxSize=6'));
    expect(manifest).toMatchObject({ name: 'poems·maxSize=6', parameters: { chunking: { maxSize: 6 } }, counts: { chunksWritten: 2 } });
  });

  it('builds from a YAML config, also when it is the corpus section of an experiment config', async () => {
    const config = join(dir, 'experiment.yaml');
    const out = join(dir, 'yaml');
    await writeFile(config, `name: demo-run\ncorpus:\n  name: mini\n  out: ${out}\n  builder:\n    name: json\n    input: ${join(dir, 'poems.json')}\n    fields: { text: paragraphs }\n  chunking: { maxSize: 64 }\n`);
    await writeFile(join(dir, 'poems.json'), JSON.stringify([{ id: 1, title: '詩', paragraphs: ['一句。', '二句。'] }]));
    await run('corpus', 'build', config, '--no-progress');
    expect((await readFile(join(out, 'chunks.jsonl'), 'utf8')).trim()).toBe('{"id":"mini:1:0","docId":"1","title":"詩","text":"一句。\\n二句。","meta":{"source":"poems.json","spans":[{"doc":"1","start":0,"end":7}]}}');
  });

  it('builds the corpus an experiment config lists under prepare.corpora, chosen with --name when several', async () => {
    const config = join(dir, 'experiment-prepare.yaml');
    const corpus = (name: string) => `    - name: ${name}\n      out: ${join(dir, name)}\n      builder: { name: json, input: ${join(dir, 'poems.json')}, fields: { text: paragraphs } }\n`;
    await writeFile(join(dir, 'poems.json'), JSON.stringify([{ id: 1, title: '詩', paragraphs: ['一句。', '二句。'] }]));
    await writeFile(config, `name: study\nprepare:\n  corpora:\n${corpus('first')}${corpus('second')}`);
    await expect(run('corpus', 'build', config, '--no-progress')).rejects.toThrow('prepare.corpora lists 2 corpora (first, second); choose one with --name');
    await run('corpus', 'build', config, '--name', 'second', '--no-progress');
    expect((await readCorpusManifest(join(dir, 'second'))).name).toBe('second');
  });

  it('maps --field and --meta to the json builder field mapping', async () => {
    const input = join(dir, 'mapped.jsonl');
    await writeFile(input, '{"uid":"x","name":"甲","body":"文。","author":"某"}\n');
    const out = join(dir, 'mapped');
    await run('corpus', 'build', '--builder', 'json', '--input', input, '--out', out, '--field', 'id=uid', '--field', 'title=name', '--field', 'text=body', '--meta', 'author', '--no-progress');
    expect(JSON.parse(await readFile(join(out, 'chunks.jsonl'), 'utf8'))).toMatchObject({ id: 'mapped:x:0', title: '甲', meta: { author: '某' } });
  });

  it('reports a truncated dump as a DataFileError (exit 2) and leaves no manifest', async () => {
    const whole = await readFile(join(fixtures, 'mini-dump.xml.bz2'));
    const input = join(dir, 'cut.xml.bz2');
    await writeFile(input, whole.subarray(0, 700));
    const out = join(dir, 'cut');
    await expect(run('corpus', 'build', '--builder', 'wikipedia-dump', '--input', input, '--out', out, '--workers', '0', '--no-progress')).rejects.toThrow(DataFileError);
    await expect(readCorpusManifest(out)).rejects.toThrow(/incomplete/);
  });

  it('fails, naming the source and the reasons, when the source yields no text at all (never "0 chunks, exit 0")', async () => {
    const input = join(dir, 'empty-texts.json');
    await writeFile(input, JSON.stringify([{ id: 1, title: '空', paragraphs: [] }, { id: 2, title: '也空', paragraphs: [''] }]));
    const building = run('corpus', 'build', '--builder', 'json', '--input', input, '--field', 'text=paragraphs', '--out', join(dir, 'empty'), '--no-progress');
    await expect(building).rejects.toThrow(DataFileError);
    await expect(building).rejects.toThrow(/2 source records read from .*empty-texts\.json but no text to chunk/);
  });

  it('names file, line and column of a config that is not YAML, and the override of a --set that cannot apply', async () => {
    const config = join(dir, 'broken.yaml');
    await writeFile(config, 'name: mini\nbuilder: { name: json\n');
    await expect(run('corpus', 'build', config)).rejects.toThrow(new RegExp(`^${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:1: invalid YAML`));
    const args = ['corpus', 'build', '--builder', 'json', '--input', join(dir, 'poems.json'), '--out', join(dir, 'set')];
    await expect(run(...args, '--set', 'fields.text.deep=x', '--field', 'text=paragraphs')).rejects.toThrow('--set fields.text.deep=x: text is not an object or a list');
  });

  it('rejects an unknown builder and a missing --out with InputError', async () => {
    await expect(run('corpus', 'build', '--builder', 'nope', '--out', dir)).rejects.toThrow(/unknown builder "nope"/);
    await expect(run('corpus', 'build', '--builder', 'json', '--input', 'x.json')).rejects.toThrow(InputError);
  });
});
