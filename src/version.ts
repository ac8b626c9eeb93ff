import { readFileSync } from 'node:fs';

/** hisrag's version, from package.json (one source of truth). */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
