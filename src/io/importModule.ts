import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

let typeScriptLoader: Promise<void> | null = null;

/**
 * Imports a module a config names (a LangChain chain, a local service), path relative to the
 * working directory. A TypeScript file needs a loader: hisrag running from its sources already has
 * one (tsx, or vitest); compiled (dist/), it registers tsx on the first such import.
 */
export async function importUserModule(path: string): Promise<Record<string, unknown>> {
  if (/\.[cm]?tsx?$/.test(path) && !import.meta.url.endsWith('.ts')) {
    typeScriptLoader ??= import('tsx/esm/api').then(({ register }) => {
      register();
    });
    await typeScriptLoader;
  }
  return (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
}
