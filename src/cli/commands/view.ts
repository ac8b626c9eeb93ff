import type { Command } from 'commander';
import { InputError } from '../../errors.js';
import { DEFAULT_VIEW_CACHE, DEFAULT_VIEW_CACHE_LIMIT, VIEW_CACHE_ENV, VIEW_CACHE_LIMIT_ENV, viewCacheDir, viewCacheLimit } from '../../viewer/cacheDir.js';

export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('Browse runs in the browser: every run, condition and answer; compare, filter, drill down (read-only local server, or --bundle a static site)')
    .argument('[runs...]', 'run directories, or folders that hold them', ['experiments/runs'])
    .option('--port <port>', 'port to listen on (default: a free one)')
    .option('--host <host>', 'address to bind (default 127.0.0.1; anything else lets other machines read the runs)', '127.0.0.1')
    .option('--bundle <out-dir>', 'write the viewer with the runs as a static site (opens from file://) instead of serving')
    .option('--cache-dir <dir>', `where the answers' indexes are kept between starts, never inside a run directory (default $${VIEW_CACHE_ENV}, else ${DEFAULT_VIEW_CACHE} under the working directory)`)
    .option(
      '--cache-limit <size>',
      `bound of the cache folder, e.g. 500MB or 4GB: beyond it the least recently used runs' indexes are removed at start (default $${VIEW_CACHE_LIMIT_ENV}, else ${DEFAULT_VIEW_CACHE_LIMIT}); indexes of run directories that no longer exist always are`,
    )
    .option('--clear-cache', 'remove every index from the cache folder and exit (runs are indexed again when next viewed)')
    .action(async (runs: string[], opts: { port?: string; host: string; bundle?: string; cacheDir?: string; cacheLimit?: string; clearCache?: boolean }) => {
      const paths = runs.length ? runs : ['experiments/runs'];
      if (opts.clearCache) {
        const cacheDir = viewCacheDir(opts.cacheDir);
        const { clearCache } = await import('../../viewer/cacheMaintenance.js');
        const cleared = clearCache(cacheDir);
        process.stdout.write(`hisrag view: removed ${cleared.removed} index${cleared.removed === 1 ? '' : 'es'} (${(cleared.freedBytes / 1e6).toFixed(1)} MB) from ${cacheDir}\n`);
        return;
      }
      viewCacheLimit(opts.cacheLimit); // a bad size is refused before anything starts
      if (opts.bundle) {
        const { writeBundle } = await import('../../viewer/bundle.js');
        const result = await writeBundle(paths, opts.bundle, { cacheDir: opts.cacheDir });
        process.stdout.write(`bundle: ${result.runs} runs, ${result.answers} answers${result.thumbnails ? `, ${result.thumbnails} page thumbnails` : ''} → ${result.index}\n`);
        return;
      }
      const port = opts.port === undefined ? 0 : Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InputError(`--port ${opts.port}: expected a port number (0–65535)`);
      const { startViewer } = await import('../../viewer/server.js');
      const viewer = await startViewer(paths, { port, host: opts.host, cacheDir: opts.cacheDir, cacheLimit: opts.cacheLimit });
      if (!['127.0.0.1', 'localhost', '::1'].includes(opts.host)) {
        process.stderr.write(`hisrag view: WARNING: listening on ${opts.host}: anyone who can reach this machine on port ${new URL(viewer.url).port} can read these runs (prompts, answers, configs)\n`);
      }
      const ids = viewer.store.ids();
      for (const [dir, why] of viewer.store.skipped) process.stderr.write(`hisrag view: skipped ${dir}: ${why}\n`);
      process.stdout.write(`hisrag view: ${viewer.url}  (${ids.length} run${ids.length === 1 ? '' : 's'} from ${paths.join(', ')}; new runs and answers appear as they are written; Ctrl-C to stop)\n`);
      // Answers are indexed in the background; the index stays in the cache folder for the next start.
      process.stderr.write(`hisrag view: answers indexed in the background into ${viewer.store.cacheDir} (kept between starts, pruned to ${(viewer.store.cacheLimitBytes / 1e9).toFixed(1)} GB; --cache-dir or ${VIEW_CACHE_ENV} to move it, --clear-cache to empty it)\n`);
      // Ctrl-C stops the server (exit 130, as every command); the indexes stay in the cache folder.
      const { gracefulStop } = await import('../interrupts.js');
      const stop = gracefulStop();
      await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
      stop.release();
      await viewer.close();
    });
}
