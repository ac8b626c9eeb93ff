import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A throwaway MediaWiki (Debian's `mediawiki` package, SQLite) for tests: installed into a temporary
 * folder with `maintenance/install.php`, filled with `importDump.php`, served on 127.0.0.1 by
 * `php -S`. Tests install nothing: `.ci/run` installs the packages; without them the tests skip.
 */
export const MEDIAWIKI_DIR = process.env.HISRAG_MEDIAWIKI_DIR ?? '/usr/share/mediawiki';

/** Why a real MediaWiki cannot run here, or undefined when it can. */
export async function mediawikiUnavailable(): Promise<string | undefined> {
  try {
    await run('php', ['--version']);
  } catch {
    return 'php is not installed (apt-get install php-cli php-sqlite3 mediawiki; .ci/run does this)';
  }
  if (!existsSync(join(MEDIAWIKI_DIR, 'maintenance', 'install.php'))) {
    return `MediaWiki is not installed at ${MEDIAWIKI_DIR} (apt-get install mediawiki; .ci/run does this)`;
  }
  const { stdout } = await run('php', ['-m']);
  if (!/^pdo_sqlite$/m.test(stdout)) return "PHP's SQLite driver is missing (apt-get install php-sqlite3; .ci/run does this)";
  return undefined;
}

export interface LocalMediawiki {
  dir: string;
  /** api.php of the plain wiki (no extension loaded). */
  apiUrl: string;
  /** api.php of the same wiki (same database) with TextExtracts, Cite and Poem loaded. */
  apiUrlWithTextExtracts: string;
  /** Runs `dumpBackup.php --current` and returns the path of the XML it wrote. */
  dumpCurrent(): Promise<string>;
  stop(): Promise<void>;
}

export async function startLocalMediawiki(importXml: string): Promise<LocalMediawiki> {
  const dir = await mkdtemp(join(tmpdir(), 'hisrag-mediawiki-'));
  const servers: ChildProcess[] = [];
  try {
    const [port, portTe] = [await freePort(), await freePort()];
    const plainSettings = join(dir, 'LocalSettings.php');
    await php(
      ['maintenance/install.php', '--dbtype', 'sqlite', '--dbpath', dir, '--confpath', dir, '--server', `http://127.0.0.1:${port}`, '--scriptpath', '', '--lang', 'zh', '--pass', 'hisrag-test-password-1', 'HisragTest', 'Admin'],
      {},
    );
    // Quiet and deterministic: no jobs run during web requests, no caches across the two configs.
    await appendFile(plainSettings, '\n$wgJobRunRate = 0;\n$wgMainCacheType = CACHE_NONE;\n$wgParserCacheType = CACHE_NONE;\n$wgShowExceptionDetails = true;\n');
    const teSettings = join(dir, 'LocalSettings-TextExtracts.php');
    await copyFile(plainSettings, teSettings);
    await appendFile(teSettings, `\n$wgServer = 'http://127.0.0.1:${portTe}';\nwfLoadExtension( 'TextExtracts' );\nwfLoadExtension( 'Cite' );\nwfLoadExtension( 'Poem' );\n`);

    const pagesFile = join(dir, 'pages.xml');
    await writeFile(pagesFile, importXml);
    const env = { MW_CONFIG_FILE: plainSettings };
    await php(['maintenance/importDump.php', '--quiet', pagesFile], env);
    await php(['maintenance/runJobs.php', '--quiet'], env); // category and template links
    await php(['maintenance/rebuildtextindex.php', '--quiet'], env); // search index

    servers.push(serve(port, plainSettings, dir), serve(portTe, teSettings, dir));
    const apiUrl = `http://127.0.0.1:${port}/api.php`;
    const apiUrlWithTextExtracts = `http://127.0.0.1:${portTe}/api.php`;
    await Promise.all([waitForApi(apiUrl, servers[0]!), waitForApi(apiUrlWithTextExtracts, servers[1]!)]);
    return {
      dir,
      apiUrl,
      apiUrlWithTextExtracts,
      async dumpCurrent() {
        const out = join(dir, 'dump-current.xml');
        const { stdout } = await php(['maintenance/dumpBackup.php', '--current', '--quiet'], env);
        await writeFile(out, stdout);
        return out;
      },
      async stop() {
        await Promise.all(servers.map(stopServer));
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(servers.map(stopServer));
    const log = await readFile(join(dir, 'server.log'), 'utf8').catch(() => '');
    await rm(dir, { recursive: true, force: true });
    throw new Error(`local MediaWiki did not start: ${(error as Error).message}${log ? `\nphp -S log:\n${log.slice(-2000)}` : ''}`);
  }
}

async function php(args: string[], env: Record<string, string>): Promise<{ stdout: string }> {
  try {
    return await run('php', args, { cwd: MEDIAWIKI_DIR, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`php ${args[0]} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`.slice(0, 4000));
  }
}

function serve(port: number, settings: string, dir: string): ChildProcess {
  const child = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', MEDIAWIKI_DIR], {
    cwd: MEDIAWIKI_DIR,
    env: { ...process.env, MW_CONFIG_FILE: settings },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => void appendFile(join(dir, 'server.log'), d).catch(() => {}));
  return child;
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function waitForApi(apiUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`php -S exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${apiUrl}?action=query&meta=siteinfo&format=json`);
      if (res.ok && (await res.text()).includes('"general"')) return;
      last = `HTTP ${res.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${apiUrl} did not answer within 30 s (${last})`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
