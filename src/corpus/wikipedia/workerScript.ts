import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const bundled = new Map<string, Promise<URL>>();

/** The module `name` beside `importMetaUrl`, with the caller's own extension: `.ts` from the sources, `.js` from dist/. */
export function siblingModule(importMetaUrl: string, name: string): URL {
  return new URL(`./${name}.${importMetaUrl.endsWith('.ts') ? 'ts' : 'js'}`, importMetaUrl);
}

/**
 * The script a worker thread should load for `entry` (a module next to this one): compiled code,
 * loaded by each worker without a transpiler. Run as JavaScript, that is the entry itself. Run
 * from the TypeScript sources (through tsx), the entry and its local imports are bundled once per
 * process with esbuild (tsx's own dependency) into `.cache/workers/` of the project, where the
 * packages it imports still resolve; a worker then starts ~150 ms sooner than one that registers
 * tsx and transpiles. Where bundling fails, `fallback` (a boot file that registers tsx) is used.
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
