import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import { InputError } from '../../errors.js';
import { gracefulStop } from '../interrupts.js';
import { collect, integer } from '../options.js';
import type { CorpusBuildConfig } from '../../corpus/config.js';

interface BuildOptions {
  builder?: string;
  input?: string[];
  out?: string;
  name?: string;
  maxSize?: number;
  unit?: 'chars' | 'tokens';
  overlap?: number;
  tokenizer?: string;
  headingPrefix?: boolean;
  dedupe?: boolean;
  simplify?: boolean;
  workers?: number;
  apiUrl?: string;
  titles?: string;
  search?: string;
  category?: string[];
  qaFile?: string;
  windows?: number;
  field?: string[];
  meta?: string[];
  set?: string[];
  resume?: boolean;
  progress: boolean;
}

export function registerCorpusCommands(program: Command): void {
  const corpus = program.command('corpus').description('Build retrieval corpora (chunks.jsonl + manifest.json) and inspect them');
  // The builders (and the parsers they import) load only when a corpus command runs, `--help` included:
  // the --builder option's list of names is filled in then.
  const builderOption = new Option('--builder <name>', 'builder (see `hisrag corpus builders`)');
  corpus.hook('preSubcommand', async () => {
    const { corpusBuilders } = await import('../../corpus/registry.js');
    builderOption.description = `builder: ${corpusBuilders.names().join(' | ')}`;
  });

  corpus
    .command('build')
    .description(
      'Build a corpus from a config file (a corpus config, or an experiment config with a `corpus:` section), ' +
        'or from flags for one-off builds. Runs in <out>.partial/ with checkpoints; Ctrl-C leaves a state that --resume continues.',
    )
    .argument('[config]', 'YAML/JSON corpus build config')
    .addOption(builderOption)
    .option('--input <path>', 'input file or directory (repeatable); for mediawiki-api use --api-url', collect)
    .option('--out <dir>', 'corpus directory (default corpora/<name>)')
    .option('--name <name>', 'corpus name, the first part of chunk ids (default: the --out directory name)')
    .option('--max-size <n>', 'chunk size limit (default 512)', integer('--max-size', 1))
    .option('--unit <unit>', 'chars | tokens (tokens needs --tokenizer)')
    .option('--overlap <n>', 'overlap between consecutive chunks, in units (default 0)', integer('--overlap', 0))
    .option('--tokenizer <dir>', 'local directory with tokenizer.json, for --unit tokens')
    .option('--heading-prefix', 'start each chunk with its section heading path')
    .option('--dedupe', 'drop exact-duplicate chunks (default, except longhisdoc-ocr)')
    .option('--no-dedupe', 'keep exact-duplicate chunks')
    .option('--simplify', 'convert to simplified Chinese (default on for wikipedia-dump and mediawiki-api)')
    .option('--no-simplify', 'keep the source script')
    .option('--workers <n>', 'wikipedia-dump: parser worker threads (0 = main thread)', integer('--workers', 0))
    .option('--api-url <url>', 'mediawiki-api: API endpoint (default https://zh.wikipedia.org/w/api.php)')
    .option('--titles <list>', 'wikipedia-dump / mediawiki-api: comma-separated page titles')
    .option('--search <query>', 'mediawiki-api: search query')
    .option('--category <name[:depth]>', 'mediawiki-api: category crawl, e.g. 科举:2 (repeatable)', collect)
    .option('--qa-file <path>', 'longhisdoc-ocr: LongHisDoc.json for book metadata')
    .option('--windows <n>', 'longhisdoc-ocr: also windows of n consecutive pages', integer('--windows', 2))
    .option('--field <key=name>', 'json: field mapping, e.g. text=paragraphs (keys id, title, text; repeatable)', collect)
    .option('--meta <name>', 'json: record field copied into chunk meta (repeatable)', collect)
    .option('--set <key=value>', 'any builder parameter, dotted keys, YAML value (e.g. minLength=200; repeatable)', collect)
    .option('--resume', 'continue an interrupted build of the same config')
    .option('--no-progress', 'no progress output')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  hisrag corpus build corpora/zhwiki.yaml --resume\n' +
        '  hisrag corpus build --builder wikipedia-dump --input zhwiki-latest-pages-articles-multistream.xml.bz2 --out corpora/zhwiki\n' +
        '  hisrag corpus build --builder mediawiki-api --category 科举:2 --out corpora/keju\n' +
        '  hisrag corpus build --builder longhisdoc-ocr --input data/OCR_res --qa-file data/LongHisDoc.json --windows 2 --out corpora/longhisdoc\n' +
        '  hisrag corpus build --builder json --input node_modules/chinese-poetry/全唐诗 --field text=paragraphs --meta author --out corpora/tang',
    )
    .action(async (configPath: string | undefined, options: BuildOptions) => {
      const config = configPath ? await configFromFile(configPath, options) : await configFromFlags(options);
      // Ctrl-C stops after the current batch, keeping a state that --resume continues.
      const stop = gracefulStop();
      try {
        const { buildCorpus } = await import('../../corpus/build.js');
        const manifest = await buildCorpus(config, { resume: options.resume, progress: options.progress, signal: stop.signal });
        const skipped = Object.entries(manifest.counts.documentsSkipped).map(([k, v]) => `${k} ${v}`).join(', ');
        process.stdout.write(
          `corpus ${manifest.name}: ${manifest.counts.chunksWritten} chunks from ${manifest.counts.documentsRead} source records` +
            `${skipped ? ` (skipped: ${skipped})` : ''}, ${manifest.counts.duplicateChunksDropped} duplicate chunks dropped, ` +
            `${manifest.timings.seconds}s → ${config.out ?? `corpora/${config.name}`}\n`,
        );
      } finally {
        stop.release();
      }
    });

  corpus
    .command('info')
    .description('Print the manifest of a built corpus (refuses an incomplete one)')
    .argument('<dir>', 'corpus directory')
    .action(async (dir: string) => {
      const { readCorpusManifest } = await import('../../runFiles/corpusFiles.js');
      process.stdout.write(JSON.stringify(await readCorpusManifest(dir), null, 2) + '\n');
    });

  corpus
    .command('builders')
    .description('List the corpus builders')
    .action(async () => {
      const { corpusBuilders } = await import('../../corpus/registry.js');
      for (const name of corpusBuilders.names()) process.stdout.write(`${name}\t${corpusBuilders.entry(name).description}\n`);
    });
}

async function configFromFile(path: string, options: BuildOptions): Promise<CorpusBuildConfig> {
  if (options.builder || options.input) throw new InputError('give either a config file or --builder/--input flags, not both');
  const { readYamlFile } = await import('../../config/load.js');
  const value = await readYamlFile(path);
  if (typeof value !== 'object' || value === null) throw new InputError(`${path}: expected a mapping`);
  // An experiment config carries its corpus builds in `prepare.corpora` (pick one with --name when
  // there are several; a chunking sweep's corpora by their expanded names); a `corpus` section is also accepted.
  const { sweptCorpora } = await import('../../config/chunkingSweep.js');
  const record = value as Record<string, unknown>;
  const prepared = (record.prepare as { corpora?: unknown } | undefined)?.corpora;
  let section: Record<string, unknown>;
  if (!('builder' in record) && Array.isArray(prepared)) {
    const corpora: Record<string, unknown>[] = sweptCorpora(prepared, path);
    const names = corpora.map((c) => String(c.name));
    const chosen = options.name ? corpora.find((c) => c.name === options.name) : corpora.length === 1 ? corpora[0] : undefined;
    if (!chosen) {
      throw new InputError(
        options.name
          ? `${path}: prepare.corpora has no corpus named "${options.name}" (it has: ${names.join(', ')})`
          : `${path}: prepare.corpora lists ${corpora.length} corpora (${names.join(', ')}); choose one with --name`,
      );
    }
    section = chosen;
  } else {
    section = (!('builder' in record) && typeof record.corpus === 'object' ? record.corpus : record) as Record<string, unknown>;
  }
  return { ...section, ...(options.out ? { out: options.out } : {}) } as CorpusBuildConfig;
}

async function configFromFlags(options: BuildOptions): Promise<CorpusBuildConfig> {
  const { corpusBuilders } = await import('../../corpus/registry.js');
  const { applyOverrides } = await import('../../config/load.js');
  if (!options.builder) throw new InputError('give a config file, or --builder with its inputs (see --help)');
  if (!corpusBuilders.has(options.builder)) throw new InputError(`--builder: unknown builder "${options.builder}" (known: ${corpusBuilders.names().join(', ')})`);
  if (!options.out) throw new InputError('--out: required with --builder');
  const params: Record<string, unknown> = { name: options.builder };
  if (options.input) params.input = options.input.length === 1 ? options.input[0] : options.input;
  if (options.simplify !== undefined) params.simplify = options.simplify;
  if (options.workers !== undefined) params.workers = options.workers;
  if (options.apiUrl) params.apiUrl = options.apiUrl;
  if (options.titles) params.titles = options.titles.split(',').map((t) => t.trim()).filter(Boolean);
  if (options.search) params.search = { query: options.search };
  if (options.category) {
    params.categories = options.category.map((spec) => {
      const match = /^(.*?)(?::(\d+))?$/.exec(spec)!;
      return match[2] === undefined ? { name: match[1] } : { name: match[1], depth: Number(match[2]) };
    });
  }
  if (options.qaFile) params.qaFile = options.qaFile;
  if (options.windows) params.windows = { size: options.windows };
  if (options.field || options.meta) {
    const fields: Record<string, unknown> = {};
    for (const pair of options.field ?? []) {
      const [key, value] = splitPair('--field', pair);
      fields[key] = value;
    }
    if (options.meta) fields.meta = options.meta;
    params.fields = fields;
  }
  applyOverrides(params, options.set ?? []);
  const chunking: Record<string, unknown> = {};
  if (options.maxSize !== undefined) chunking.maxSize = options.maxSize;
  if (options.unit) chunking.unit = options.unit;
  if (options.overlap !== undefined) chunking.overlap = options.overlap;
  if (options.tokenizer) chunking.tokenizer = options.tokenizer;
  if (options.headingPrefix) chunking.headingPrefix = true;
  return {
    name: options.name ?? basename(options.out),
    builder: params as CorpusBuildConfig['builder'],
    out: options.out,
    chunking,
    ...(options.dedupe === undefined ? {} : { dedupe: options.dedupe }),
  };
}

function splitPair(flag: string, pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new InputError(`${flag}: expected key=value, got "${pair}"`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}
