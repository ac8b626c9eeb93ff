import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { siblingWorker } from '../../models/workerPool.js';

const bundled = new Map<string, Promise<URL>>();

/** The worker script of module `name` beside `importMetaUrl` (see workerScript), `<name>.boot.mjs` its fallback. */
export function siblingWorkerScript(importMetaUrl: string, name: string): Promise<URL> {
  return workerScript(pathToFileURL(siblingWorker(importMetaUrl, name)), new URL(`./${name}.boot.mjs`, importMetaUrl));
}

/**
 * The script a worker thread loads for `entry`: the entry itself when running compiled; from the
 * TypeScript sources, the entry bundled once per process with esbuild (tsx's own) into `.cache/workers/`,
 * which starts ~150 ms sooner than registering tsx in each worker — or `fallback` where bundling fails.
 */
export function workerScript(entry: URL, fallback: URL): Promise<URL> {
  if (!entry.pathname.endsWith('.ts')) return Promise.resolve(entry);
  let script = bundled.get(entry.href);
  if (!script) {
    script = bundle(entry).catch(() => fallback);
    bundled.set(entry.href, script);
  }
  return script;
}

async function bundle(entry: URL): Promise<URL> {
  const requireHere = createRequire(import.meta.url);
  const esbuild = createRequire(requireHere.resolve('tsx/package.json'))('esbuild') as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const name = entry.pathname.split('/').pop()!.replace(/\.ts$/, '');
  const dir = fileURLToPath(new URL('../../../.cache/workers/', import.meta.url));
  const path = join(dir, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(path)) {
    await mkdir(dir, { recursive: true });
    // Written under a temporary name and renamed: a concurrent build never loads half a file.
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, code);
    await rename(temporary, path);
  }
  return pathToFileURL(path);
}
