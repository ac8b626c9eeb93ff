// Imported first by dist/index.js (the library's entry): a program importing 'hisrag' gets a clear
// error instead of compiled code older than the sources (`npm run build` brings dist/ up to date).
import { fileURLToPath } from 'node:url';
import { compiledIsCurrent } from './sourceStamp.mjs';

const root = new URL('..', import.meta.url);
if (!compiledIsCurrent(root)) {
  throw new Error(`hisrag: ${fileURLToPath(new URL('dist/', root))} is missing or was built from other sources than src/ holds now; run \`npm run build\``);
}
