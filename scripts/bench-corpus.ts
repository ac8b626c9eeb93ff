/**
 * Corpus benchmarks (figures, not assertions): where the time of a zhwiki-scale dump build goes,
 * and how fast a poem collection is chunked. Each stage runs in its own child process so that
 * its peak RSS is its own.
 *
 *   node --import tsx scripts/bench-corpus.ts [--dir /tmp/hisrag-bench] [--mb 220] [--poems 55000] [--max-seconds 240]
 *
 * Stages on a synthetic dump (scripts/generate-synthetic-dump.ts; .bz2 made with the system bzip2):
 *   bz2-system   system `bzip2 -dc` (reference: native decompression)
 *   bz2-js       unbzip2-stream alone (the decompressor the builder uses)
 *   xml          saxes page streaming alone (readDumpPages over the .xml)
 *   build-xml    the full wikipedia-dump build (parse in workers, simplify, chunk, write) from .xml
 *   build-bz2    the same from .xml.bz2 with the default decoder (native bzip2 when installed)
 *   build-bz2-js the same with the pure-JS decoder (unbzip2-stream)
 *   build-bz2-wN the build from .xml.bz2 with N chunk workers (build-bz2-w0: all in the main thread);
 *                e.g. --only build-bz2-w0,build-bz2-w1,build-bz2-w2,build-bz2 for the scaling table
 *   build-xml-wtf the full build from .xml with the earlier parser (`parser: wtf_wikipedia`), side by side
 *   equality     chunk text of the fast parser against wtf_wikipedia's (the earlier output) on a sample
 *                of pages (every 20th article)
 *   poems        the json builder on chinese-poetry-shaped Tang poems (generated: the npm package
 *                is ~85 MB compressed, too big to add for a benchmark)
 *   versus-wikiextractor
 *                WikiExtractor (`python3 -m wikiextractor.WikiExtractor --no-templates`, run from
 *                --wikiextractor, a checkout of github.com/attardi/wikiextractor) and hisrag's dump
 *                build (the CLI as a user runs it: `node bin/hisrag.mjs corpus build --builder
 *                wikipedia-dump`, from the compiled dist/, whose chunk workers load compiled
 *                JavaScript too) on the same dump, --rounds times, alternating which goes first;
 *                each one's CPU-seconds are user + system of its whole process tree (threads and
 *                child processes included), and the ratio is WikiExtractor's over hisrag's.
 *                Only with --only versus-wikiextractor; --input xml (default) or bz2.
 * A stage that runs past --max-seconds is stopped and reports the rate over what it did.
 * Rates are given per wall second and per CPU second (user + system of the stage's process, worker
 * threads and finished child processes such as native bzip2 included): on a shared machine the
 * CPU figure is the one that says what one core does. Builds also report the main thread's own
 * CPU-seconds (Linux: /proc/self/task): the share that does not spread over workers.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: '/tmp/hisrag-bench' },
    mb: { type: 'string', default: '220' },
    poems: { type: 'string', default: '55000' },
    'max-seconds': { type: 'string', default: '240' },
    stage: { type: 'string' },
    only: { type: 'string' },
    wikiextractor: { type: 'string', default: '/tmp/wikiextractor' },
    rounds: { type: 'string', default: '3' },
    input: { type: 'string', default: 'xml' },
  },
});
const dir = values.dir!;
const maxSeconds = Number(values['max-seconds']);
const xmlPath = join(dir, `synthetic-${values.mb}mb.xml`);
const bz2Path = `${xmlPath}.bz2`;
const poemsDir = join(dir, `tang-${values.poems}`);

interface StageResult {
  stage: string;
  seconds: number;
  bytes?: number;
  pages?: number;
  chunks?: number;
  stopped?: boolean;
  peakRssMiB: number;
  cpuSeconds?: number;
  /** CPU-seconds of the main thread alone (Linux). */
  mainThreadSeconds?: number;
  note?: string;
}

// utime + stime (fields 14, 15) and, for the process, cutime + cstime of reaped children (16, 17), in clock ticks.
function procCpuSeconds(statPath: string, withChildren: boolean): number | undefined {
  try {
    const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}
const peakRss = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function runStage(stage: string): Promise<StageResult> {
  const cpuStart = process.cpuUsage();
  const childrenStart = procCpuSeconds('/proc/self/stat', true)! - procCpuSeconds('/proc/self/stat', false)!;
  const mainStart = procCpuSeconds(`/proc/self/task/${process.pid}/stat`, false);
  const result = await runStageTimed(stage);
  const cpu = process.cpuUsage(cpuStart);
  const children = procCpuSeconds('/proc/self/stat', true)! - procCpuSeconds('/proc/self/stat', false)! - childrenStart;
  const main = procCpuSeconds(`/proc/self/task/${process.pid}/stat`, false);
  return {
    ...result,
    cpuSeconds: (cpu.user + cpu.system) / 1e6 + (Number.isFinite(children) ? children : 0),
    ...(main !== undefined && mainStart !== undefined ? { mainThreadSeconds: main - mainStart } : {}),
  };
}

async function runStageTimed(stage: string): Promise<StageResult> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), maxSeconds * 1000);
  timer.unref();
  try {
    if (stage === 'bz2-js') {
      const { default: unbzip2 } = await import('unbzip2-stream');
      const { PassThrough } = await import('node:stream');
      const out = new PassThrough({ highWaterMark: 1 << 20 });
      createReadStream(bz2Path, { highWaterMark: 1 << 20 }).pipe(unbzip2()).pipe(out);
      let bytes = 0;
      for await (const block of out) {
        bytes += (block as Buffer).length;
        if (deadline.signal.aborted) return { stage, seconds: seconds(), bytes, stopped: true, peakRssMiB: peakRss() };
      }
      return { stage, seconds: seconds(), bytes, peakRssMiB: peakRss() };
    }
    if (stage === 'xml') {
      const { readDumpPages } = await import('../src/corpus/wikipedia/dumpPages.js');
      let pages = 0;
      let bytes = 0;
      for await (const _ of readDumpPages(xmlPath, { onBytes: (b) => (bytes = b), signal: deadline.signal })) pages++;
      return { stage, seconds: seconds(), bytes, pages, stopped: deadline.signal.aborted, peakRssMiB: peakRss() };
    }
    if (stage === 'equality') {
      const { readDumpPages } = await import('../src/corpus/wikipedia/dumpPages.js');
      const { wikitextToArticle } = await import('../src/corpus/wikipedia/wikitextToArticle.js');
      const { chunkDocument, countCodePoints } = await import('../src/chunking/chunker.js');
      const { DEFAULT_DROPPED_SECTIONS, DEFAULT_DISAMBIGUATION_TEMPLATES } = await import('../src/corpus/wikipedia/builder.js');
      const options = { simplify: true, dropSections: DEFAULT_DROPPED_SECTIONS, disambiguationTemplates: DEFAULT_DISAMBIGUATION_TEMPLATES };
      const chunkTexts = (page: { id: string; title: string }, parser: 'fast' | 'wtf_wikipedia', wikitext: string) => {
        const article = wikitextToArticle(wikitext, { ...options, parser });
        const document = { docId: page.id, title: page.title, text: article.sections.map((s) => s.text).join('\n\n'), meta: {}, sections: article.sections };
        const chunks = chunkDocument(document, { corpus: 'eq', maxSize: 512, overlap: 0, measure: countCodePoints });
        return JSON.stringify([article.disambiguation, article.categories, chunks.map((c) => c.text)]);
      };
      let articles = 0;
      let sampled = 0;
      let equal = 0;
      const differing: string[] = [];
      for await (const page of readDumpPages(xmlPath, { signal: deadline.signal })) {
        if (page.ns !== 0 || page.redirect || articles++ % 20 !== 0) continue;
        sampled++;
        if (chunkTexts(page, 'fast', page.text) === chunkTexts(page, 'wtf_wikipedia', page.text)) equal++;
        else if (differing.length < 5) differing.push(page.title);
      }
      const note = `equal chunk text (and categories, disambiguation flag) on ${equal} of ${sampled} sampled articles${differing.length ? `; differing: ${differing.join(', ')}` : ''}`;
      return { stage, seconds: seconds(), pages: sampled, stopped: deadline.signal.aborted, peakRssMiB: peakRss(), note };
    }
    const workers = /-w(\d+)$/.exec(stage)?.[1];
    if (stage === 'build-xml' || stage === 'build-xml-wtf' || stage === 'build-bz2' || stage === 'build-bz2-js' || stage === 'poems' || workers !== undefined) {
      const { buildCorpus } = await import('../src/corpus/build.js');
      const out = join(dir, `out-${stage}`);
      const builder =
        stage === 'poems'
          ? { name: 'json', input: poemsDir, fields: { text: 'paragraphs', meta: ['author'] }, simplify: true }
          : {
              name: 'wikipedia-dump',
              input: stage.startsWith('build-xml') ? xmlPath : bz2Path,
              ...(stage === 'build-bz2-js' ? { bz2Decoder: 'js' } : {}),
              ...(stage === 'build-xml-wtf' ? { parser: 'wtf_wikipedia' } : {}),
              ...(workers !== undefined ? { workers: Number(workers) } : {}),
            };
      const config = { name: stage, builder, out, chunking: { maxSize: 512 } };
      try {
        const manifest = await buildCorpus(config, { signal: deadline.signal });
        const m = manifest.counts;
        return { stage, seconds: seconds(), bytes: manifest.source.bytes, pages: m.documentsRead, chunks: m.chunksWritten, peakRssMiB: peakRss() };
      } catch (error) {
        if (!deadline.signal.aborted) throw error;
        const checkpoint = JSON.parse(await readFile(join(`${out}.partial`, 'checkpoint.json'), 'utf8'));
        return { stage, seconds: seconds(), bytes: checkpoint.sourceBytesRead, pages: checkpoint.itemsConsumed, chunks: checkpoint.chunksWritten, stopped: true, peakRssMiB: peakRss() };
      } finally {
        await rm(out, { recursive: true, force: true });
        await rm(`${out}.partial`, { recursive: true, force: true });
      }
    }
    throw new Error(`unknown stage ${stage}`);
  } finally {
    clearTimeout(timer);
  }
}

async function writePoems(count: number): Promise<void> {
  // chinese-poetry's 全唐诗 layout: poet.tang.<n>.json, 1000 poems each, traditional characters.
  const chars = Array.from('春風花月夜山水雲天人家秋霜雪江南北歸來去日長空明白青山高樓城邊寒鳥飛聲落葉孤舟客心中故鄉愁思君不見千里萬年何處門前柳色新酒一杯歌行路難');
  let seed = 7;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const line = (n: number) => Array.from({ length: n }, () => chars[Math.floor(rand() * chars.length)]).join('');
  await mkdir(poemsDir, { recursive: true });
  for (let file = 0; file * 1000 < count; file++) {
    const poems = [];
    for (let i = file * 1000; i < Math.min(count, (file + 1) * 1000); i++) {
      const n = rand() < 0.5 ? 5 : 7;
      const couplets = rand() < 0.6 ? 2 : 4;
      poems.push({
        author: line(2),
        paragraphs: Array.from({ length: couplets }, () => `${line(n)}，${line(n)}。`),
        title: line(3),
        id: `poem-${i}`,
      });
    }
    await writeFile(join(poemsDir, `poet.tang.${file * 1000}.json`), JSON.stringify(poems));
  }
}

function runChild(stage: string): Promise<StageResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, ...process.argv.slice(2), '--stage', stage], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`stage ${stage} exited with ${code}`))));
  });
}

function describe(result: StageResult, uncompressedBytes: number, compressedBytes: number): string {
  let mb = (result.bytes ?? 0) / 1048576;
  // Builds from .bz2 report compressed bytes read: scale to the uncompressed XML they stand for.
  if (result.stage.startsWith('build-bz2')) mb = ((result.bytes ?? 0) / compressedBytes) * (uncompressedBytes / 1048576);
  const parts = [`${result.stage.padEnd(13)} ${result.seconds.toFixed(1).padStart(7)} s (load ${loadavg()[0]!.toFixed(1)})`];
  if (result.note) return `${parts[0]}, ${result.note}, peak RSS ${result.peakRssMiB} MiB`;
  if (result.stage !== 'poems') {
    parts.push(`${(mb / result.seconds).toFixed(2).padStart(7)} MiB/s of XML`);
    if (result.cpuSeconds) parts.push(`${(mb / result.cpuSeconds).toFixed(2)} MiB of XML per CPU-second (${result.cpuSeconds.toFixed(1)} CPU-s)`);
    if (result.cpuSeconds && result.mainThreadSeconds !== undefined && result.stage.startsWith('build')) {
      parts.push(`main thread ${result.mainThreadSeconds.toFixed(1)} CPU-s (${((100 * result.mainThreadSeconds) / result.cpuSeconds).toFixed(0)}%)`);
    }
  }
  if (result.pages && result.stage !== 'poems') parts.push(`${Math.round(result.pages / result.seconds)} pages/s`);
  if (result.stage === 'poems') parts.push(`${result.pages} poems, ${Math.round((result.chunks ?? 0) / result.seconds)} chunks/s, ${Math.round((result.pages ?? 0) / result.seconds)} poems/s`);
  else if (result.chunks) parts.push(`${result.chunks} chunks`);
  parts.push(`peak RSS ${result.peakRssMiB} MiB`);
  if (result.stopped) parts.push(`(stopped at ${maxSeconds}s: ${mb.toFixed(0)} MiB done)`);
  return parts.join(', ');
}

/** CPU-seconds (user + system) of the children this process has reaped, their own children included. */
const reapedChildrenCpu = () => procCpuSeconds('/proc/self/stat', true)! - procCpuSeconds('/proc/self/stat', false)!;

/** Runs `command` to its end; its wall seconds and the CPU-seconds of its whole process tree. */
function measured(command: string, args: string[], cwd: string): { seconds: number; cpuSeconds: number } {
  const cpuBefore = reapedChildrenCpu();
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${result.status}\n${result.stderr}`);
  return { seconds, cpuSeconds: reapedChildrenCpu() - cpuBefore };
}

/**
 * WikiExtractor against hisrag's dump build on the same input, side by side: --rounds rounds, each
 * tool once per round, the first alternating. hisrag runs as the installed CLI does, from dist/
 * (rebuilt here when stale; a stale dist/ would make the CLI fall back to tsx and count
 * TypeScript compilation in its CPU-seconds).
 */
async function versusWikiExtractor(input: string, uncompressedBytes: number): Promise<void> {
  const root = new URL('..', import.meta.url).pathname;
  const { compiledIsCurrent } = await import('../bin/sourceStamp.mjs');
  if (!compiledIsCurrent(root)) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (!compiledIsCurrent(root)) throw new Error('dist/ is not current after scripts/build.mjs');
  const checkout = values.wikiextractor!;
  if (!existsSync(join(checkout, 'wikiextractor', 'WikiExtractor.py'))) throw new Error(`no WikiExtractor at ${checkout} (git archive of github.com/attardi/wikiextractor; see docs/performance.md)`);
  const mb = uncompressedBytes / 1e6;
  const load = () => loadavg()[0]!.toFixed(1);
  const tools = {
    wikiextractor: (out: string) => measured('python3', ['-m', 'wikiextractor.WikiExtractor', '--no-templates', '-q', '-o', out, input], checkout),
    hisrag: (out: string) => measured(process.execPath, [join(root, 'bin', 'hisrag.mjs'), 'corpus', 'build', '--builder', 'wikipedia-dump', '--input', input, '--out', out, '--no-progress'], root),
  };
  process.stdout.write(`versus WikiExtractor on ${input} (${mb.toFixed(1)} MB of XML); hisrag from dist/ (compiled; chunk workers load dist/corpus/wikipedia/*.js)\n`);
  const ratios: number[] = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    const order = round % 2 === 1 ? (['wikiextractor', 'hisrag'] as const) : (['hisrag', 'wikiextractor'] as const);
    const cpu: Record<string, number> = {};
    for (const tool of order) {
      const out = join(dir, `out-${tool}`);
      await rm(out, { recursive: true, force: true });
      const before = load();
      const { seconds, cpuSeconds } = tools[tool](out);
      cpu[tool] = cpuSeconds;
      process.stdout.write(`  round ${round} ${tool.padEnd(13)} ${seconds.toFixed(1).padStart(6)} s wall, ${cpuSeconds.toFixed(2).padStart(6)} CPU-s, ${(mb / cpuSeconds).toFixed(2)} MB of XML per CPU-second (load ${before} → ${load()})\n`);
      await rm(out, { recursive: true, force: true });
    }
    ratios.push(cpu.wikiextractor! / cpu.hisrag!);
    process.stdout.write(`  round ${round}: hisrag ${ratios.at(-1)!.toFixed(2)}× WikiExtractor per CPU-second\n`);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  process.stdout.write(`hisrag against WikiExtractor per CPU-second: median ${median.toFixed(2)}× (${sorted.map((r) => r.toFixed(2)).join(', ')})\n`);
}

if (values.stage) {
  process.stdout.write(JSON.stringify(await runStage(values.stage)) + '\n');
} else {
  await mkdir(dir, { recursive: true });
  if (!existsSync(xmlPath)) {
    execFileSync(process.execPath, ['--import', 'tsx', new URL('./generate-synthetic-dump.ts', import.meta.url).pathname, '--out', xmlPath, '--mb', values.mb!], { stdio: 'inherit' });
  }
  const stages = values.only ? values.only.split(',') : ['bz2-system', 'bz2-js', 'xml', 'build-xml', 'build-xml-wtf', 'equality', 'build-bz2', 'build-bz2-js', 'poems'];
  // The .bz2 and the poems only when a stage reads them (compressing 70 MB takes a while).
  const needsBz2 = stages.some((s) => s.includes('bz2')) || (stages.includes('versus-wikiextractor') && values.input === 'bz2');
  if (needsBz2 && !existsSync(bz2Path)) execFileSync('sh', ['-c', `bzip2 -c -9 '${xmlPath}' > '${bz2Path}.tmp' && mv '${bz2Path}.tmp' '${bz2Path}'`], { stdio: 'inherit' });
  if (stages.includes('poems') && !existsSync(poemsDir)) await writePoems(Number(values.poems));
  const uncompressed = statSync(xmlPath).size;
  const compressed = existsSync(bz2Path) ? statSync(bz2Path).size : 0;
  process.stdout.write(`synthetic dump: ${(uncompressed / 1048576).toFixed(1)} MiB XML${compressed ? `, ${(compressed / 1048576).toFixed(1)} MiB bz2` : ''}\n`);
  for (const stage of stages) {
    if (stage === 'versus-wikiextractor') {
      await versusWikiExtractor(values.input === 'bz2' ? bz2Path : xmlPath, uncompressed);
      continue;
    }
    if (stage === 'bz2-system') {
      const started = performance.now();
      const result = spawnSync('sh', ['-c', `bzip2 -dc '${bz2Path}' | wc -c`], { encoding: 'utf8' });
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(`${'bz2-system'.padEnd(12)} ${seconds.toFixed(1).padStart(7)} s, ${(Number(result.stdout.trim()) / 1048576 / seconds).toFixed(2).padStart(7)} MiB/s of XML (native bzip2, reference)\n`);
      continue;
    }
    process.stdout.write(describe(await runChild(stage), uncompressed, compressed) + '\n');
  }
  process.stdout.write(`load average at the end: ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')} on ${(await import('node:os')).availableParallelism()} cores\n`);
}
