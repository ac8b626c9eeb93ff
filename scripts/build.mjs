#!/usr/bin/env node
// Compiles src/ to dist/ (one JavaScript module per TypeScript module, same tree), so that the CLI
// and the library start without compiling TypeScript. Run by `npm ci`/`npm install` (the
// `prepare` script), by `npm run build`, and by the test suite's global setup when dist/ is stale.
// bin/hisrag.mjs falls back to the sources through tsx whenever dist/ is missing or was built from
// other sources than src/ holds now (bin/sourceStamp.mjs); the library entry refuses to load then.
// Every file is written under a temporary name and renamed, and the stamp last, so a CLI started
// while a build runs reads either the sources or a complete dist/, never half a file.
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { sourceStamp, STAMP_FILE } from '../bin/sourceStamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
// The viewer's browser client is bundled by esbuild (clientBuild.ts, below); its sources are copied as is.
const CLIENT = join('viewer', 'client');

const stamp = sourceStamp(root);
const entries = [];
const copies = [];
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  const path = join(entry.parentPath ?? entry.path, entry.name);
  const rel = path.slice(src.length + 1);
  if (rel.startsWith(CLIENT + '/')) copies.push(rel);
  else if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) entries.push(path);
  else if (rel.endsWith('.mjs')) copies.push(rel);
}

function writeAtomically(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

const result = await build({
  entryPoints: entries,
  outdir: dist,
  outbase: src,
  bundle: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  write: false,
});
for (const file of result.outputFiles) writeAtomically(file.path, file.contents);
for (const rel of copies) {
  mkdirSync(dirname(join(dist, rel)), { recursive: true });
  cpSync(join(src, rel), join(dist, rel));
}
// The viewer's browser client, bundled once here, beside the compiled server: `hisrag view` starts without bundling it.
const clientBuild = join(dist, 'viewer', 'clientBuild.js');
if (existsSync(clientBuild)) {
  const { bundleClient, PREBUILT_CLIENT } = await import(pathToFileURL(clientBuild).href);
  const assets = await bundleClient();
  writeAtomically(join(dist, 'viewer', PREBUILT_CLIENT.js), assets.js);
  writeAtomically(join(dist, 'viewer', PREBUILT_CLIENT.css), assets.css);
}
// The library's entry (package.json `exports`): refuses a dist/ built from other sources, then re-exports.
writeAtomically(
  join(dist, 'index.js'),
  "import '../bin/sourceGuard.mjs';\nexport * from './library.js';\n",
);
// Written last: until then a changed source keeps the CLI on the sources.
writeAtomically(join(dist, STAMP_FILE), stamp);
if (!existsSync(join(dist, 'cli', 'main.js'))) throw new Error('build: dist/cli/main.js was not written');
console.log(`hisrag: compiled ${entries.length} modules to dist/`);
