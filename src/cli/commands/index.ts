import type { Command } from 'commander';
import { InputError, InterruptedError } from '../../errors.js';
import { gracefulStop } from '../interrupts.js';
import { choice, positiveInt } from '../options.js';
import { DEFAULT_BM25, DEFAULT_HNSW, DEFAULT_LANCEDB, DEFAULT_TUNING, DEFAULT_USEARCH, LANCEDB_IVF_PQ_MIN_ROWS } from '../../index/defaults.js';
import type { ComponentSpec, EfTuning } from '../../runFiles/indexManifest.js';

function fraction(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InputError(`${flag}: expected a number in (0, 1], got "${value}"`);
    return n;
  };
}

function nonNegativeNumber(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new InputError(`${flag}: expected a non-negative number, got "${value}"`);
    return n;
  };
}

/** `--embedder <model-id-or-dir>` → a transformers spec; `--embedder-spec <json>` → any registered embedder. */
async function embedderSpec(model?: string, specJson?: string): Promise<ComponentSpec | undefined> {
  if (specJson) {
    let value: unknown;
    try {
      value = JSON.parse(specJson);
    } catch (error) {
      throw new InputError(`--embedder-spec: not valid JSON (${(error as Error).message})`);
    }
    const { ComponentSpecSchema } = await import('../../runFiles/indexManifest.js');
    const parsed = ComponentSpecSchema.safeParse(value);
    if (!parsed.success) throw new InputError('--embedder-spec: expected an object with a "name" (e.g. {"name":"transformers","model":"…"})');
    return parsed.data;
  }
  return model ? { name: 'transformers', model } : undefined;
}

export function registerIndexCommands(program: Command): void {
  const index = program.command('index').description('Build and inspect retrieval indexes');
  index
    .command('build')
    .description('Build an hnsw, exact, bm25 or lancedb index from a corpus directory (resumable with --resume)')
    .requiredOption('--corpus <dir>', 'corpus directory (manifest.json + chunks.jsonl)')
    .requiredOption('--retriever <kind>', 'index kind: hnsw | exact | bm25 | lancedb')
    .requiredOption('--out <dir>', 'index directory to write (e.g. indexes/<name>)')
    .option('--embedder <model>', 'transformers.js model id or local model directory (hnsw, exact, lancedb)')
    .option('--embedder-spec <json>', 'full embedder spec as JSON, e.g. {"name":"transformers","model":"…","dtype":"q8"}')
    .option('--resume', 'continue an interrupted build with the same settings')
    .option('--M <n>', `HNSW links per node (default ${DEFAULT_HNSW.M}; usearch ${DEFAULT_USEARCH.M})`, positiveInt('--M'))
    .option('--ef-construction <n>', `HNSW build breadth (default ${DEFAULT_HNSW.efConstruction}; usearch ${DEFAULT_USEARCH.efConstruction})`, positiveInt('--ef-construction'))
    .option('--ef-search <n>', 'default HNSW query breadth (default: tuned, the smallest reaching --target-recall at --tune-k; at least k)', positiveInt('--ef-search'))
    .option('--tune-k <n>', `depth whose recall efSearch is tuned for (default ${DEFAULT_TUNING.k})`, positiveInt('--tune-k'))
    .option('--target-recall <x>', `recall@k against exact search the tuned efSearch reaches (default ${DEFAULT_TUNING.target})`, fraction('--target-recall'))
    .option('--tune-sample <n>', `held-out queries for tuning (default ${DEFAULT_TUNING.sample})`, positiveInt('--tune-sample'))
    .option('--graph <library>', 'HNSW implementation: hnswlib (default) | usearch (multi-threaded build, compact, memory-mapped)', choice('--graph', ['hnswlib', 'usearch']))
    .option('--quantization <type>', 'usearch: precision of the vectors in the graph: i8 (default) | f16 | f32', choice('--quantization', ['i8', 'f16', 'f32']))
    .option('--vectors <precision>', 'stored vectors (exact search, rebuilds): f32 (default) | f16 | i8', choice('--vectors', ['f16', 'f32', 'i8']))
    .option('--batch-size <n>', 'chunks per embedding batch and checkpoint (default 64)', positiveInt('--batch-size'))
    .option('--k1 <x>', `BM25 k1 (default ${DEFAULT_BM25.k1})`, nonNegativeNumber('--k1'))
    .option('--b <x>', `BM25 b (default ${DEFAULT_BM25.b})`, nonNegativeNumber('--b'))
    .option('--no-bigrams', 'BM25: jieba words only, no CJK character bigrams')
    .option('--no-simplify', 'BM25: keep traditional characters as they are')
    .option('--passage <mode>', 'what is embedded per chunk: title+text (default) or text', choice('--passage', ['title+text', 'text']))
    .option('--documents <kind>', 'text (default) or image: embed each chunk\'s page image (corpus imageDir + meta.image.path) with an image embedder (clip, openai); hnsw and exact', choice('--documents', ['text', 'image']))
    .option('--lancedb-uri <uri>', `lancedb: database folder (relative to --out) or object-store URI such as s3://bucket/path (default ${DEFAULT_LANCEDB.uri})`)
    .option('--lancedb-table <name>', `lancedb: table name (default ${DEFAULT_LANCEDB.table})`)
    .option('--vector-index <kind>', `lancedb: auto (IVF-PQ from ${LANCEDB_IVF_PQ_MIN_ROWS} chunks, default) | ivf-pq | none (exact search)`, choice('--vector-index', ['auto', 'ivf-pq', 'none']))
    .option('--partitions <n>', 'lancedb IVF partitions (default √rows)', positiveInt('--partitions'))
    .option('--sub-vectors <n>', 'lancedb PQ sub-vectors (default dimension / 16)', positiveInt('--sub-vectors'))
    .option('--nprobes <n>', `lancedb: default partitions probed per query (default ${DEFAULT_LANCEDB.nprobes})`, positiveInt('--nprobes'))
    .option('--refine-factor <n>', `lancedb: default exact re-ranking of k × n candidates (default ${DEFAULT_LANCEDB.refineFactor})`, positiveInt('--refine-factor'))
    .action(async (opts) => {
      // The schemas (zod) load on use, so that `hisrag --help` does not pay for them.
      const { IndexKindSchema } = await import('../../runFiles/indexManifest.js');
      const kind = IndexKindSchema.safeParse(opts.retriever);
      if (!kind.success) throw new InputError(`--retriever: expected hnsw, exact, bm25 or lancedb, got "${opts.retriever}"`);
      if (opts.b !== undefined && opts.b > 1) throw new InputError('--b: must be between 0 and 1');
      if (opts.quantization !== undefined && opts.graph !== 'usearch') throw new InputError('--quantization: only with --graph usearch');
      const spec = await embedderSpec(opts.embedder, opts.embedderSpec);
      if (kind.data !== 'bm25' && !spec) throw new InputError(`--embedder (or --embedder-spec) is required for a ${kind.data} index`);
      // Ctrl-C stops after the batch in flight; everything stored so far is kept for --resume.
      const stop = gracefulStop();
      // Loaded on use so that the CLI starts fast.
      const { buildIndex } = await import('../../index/buildIndex.js');
      const manifest = await buildIndex({
        signal: stop.signal,
        corpusDir: opts.corpus,
        out: opts.out,
        retriever: kind.data,
        embedder: kind.data === 'bm25' ? undefined : spec,
        M: opts.M,
        efConstruction: opts.efConstruction,
        graphLibrary: opts.graph,
        vectorEncoding: opts.vectors,
        quantization: opts.quantization,
        efSearch: opts.efSearch,
        batchSize: opts.batchSize,
        resume: opts.resume ?? false,
        passage: opts.passage,
        documents: opts.documents,
        tune: { k: opts.tuneK, target: opts.targetRecall, sample: opts.tuneSample },
        bm25: {
          ...(opts.k1 !== undefined && { k1: opts.k1 }),
          ...(opts.b !== undefined && { b: opts.b }),
          bigrams: opts.bigrams,
          simplify: opts.simplify,
        },
        lancedb: {
          ...(opts.lancedbUri !== undefined && { uri: opts.lancedbUri }),
          ...(opts.lancedbTable !== undefined && { table: opts.lancedbTable }),
          ...(opts.vectorIndex !== undefined && { vectorIndex: opts.vectorIndex }),
          ...(opts.partitions !== undefined && { numPartitions: opts.partitions }),
          ...(opts.subVectors !== undefined && { numSubVectors: opts.subVectors }),
          ...(opts.nprobes !== undefined && { nprobes: opts.nprobes }),
          ...(opts.refineFactor !== undefined && { refineFactor: opts.refineFactor }),
        },
      })
        .catch((error: unknown) => {
          if (stop.signal.aborted) {
            throw new InterruptedError(`index build interrupted; everything stored so far is kept: continue it with the same command and --resume`);
          }
          throw error;
        })
        .finally(() => stop.release());
      const { counts, timings } = manifest;
      process.stdout.write(
        `index ${opts.out}: ${manifest.kind}, ${counts.chunks} chunks from ${counts.documents} documents` +
          (counts.vectors ? `, ${counts.vectors} vectors` : '') +
          (counts.terms ? `, ${counts.terms} terms` : '') +
          (timings.totalSeconds !== undefined ? ` in ${timings.totalSeconds.toFixed(1)} s` : '') +
          '\n',
      );
      if (manifest.hnsw?.tuning) process.stdout.write(tuningLine(manifest.hnsw.tuning));
      const { describeIndexEmbedder } = await import('../../runFiles/indexManifest.js');
      const conventions = describeIndexEmbedder(manifest);
      if (conventions) process.stdout.write(`embedder: ${conventions}\n`);
    });

  index
    .command('tune')
    .description('Measure recall against exact search and record the smallest efSearch reaching a target recall@k')
    .requiredOption('--index <dir>', 'hnsw index directory')
    .option('-k, --k <n>', `depth whose recall counts (default ${DEFAULT_TUNING.k})`, positiveInt('--k'))
    .option('--target-recall <x>', `recall@k to reach (default ${DEFAULT_TUNING.target})`, fraction('--target-recall'))
    .option('--sample <n>', `held-out queries drawn from the index's vectors (default ${DEFAULT_TUNING.sample})`, positiveInt('--sample'))
    .option('--ef-search <n>', 'measure this efSearch only, instead of searching for the smallest', positiveInt('--ef-search'))
    .option('--no-write', 'only measure; leave the manifest as it is')
    .action(async (opts) => {
      const { tuneIndex } = await import('../../index/tuneIndex.js');
      const tuning = await tuneIndex(opts.index, { k: opts.k, target: opts.targetRecall, sample: opts.sample, fixed: opts.efSearch, write: opts.write });
      for (const point of tuning.curve) process.stdout.write(`efSearch ${String(point.efSearch).padStart(5)}  recall@${tuning.k} ${point.recall.toFixed(4)}\n`);
      process.stdout.write(tuningLine(tuning));
      if (opts.write) process.stdout.write(`recorded in ${opts.index}/manifest.json\n`);
    });
}

function tuningLine(tuning: EfTuning): string {
  const how = tuning.tuned ? (tuning.reached ? 'tuned' : `tuned, TARGET ${tuning.target} NOT REACHED at the largest efSearch tried`) : 'given';
  const sample = tuning.protocol === 'self-excluded' ? 'sampled vectors (each excluding itself)' : 'held-out vectors';
  return `efSearch ${tuning.efSearch} (${how}): recall@${tuning.k} ${tuning.recall.toFixed(4)} against exact search on ${tuning.sample} ${sample}\n`;
}
