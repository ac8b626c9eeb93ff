// The fingerprint of the sources dist/ was built from: every file under src/ (and the build
// script itself), by path, size and modification time. The build writes it to dist/; the CLI
// computes it again at start (a stat walk, a few milliseconds) and uses dist/ only when the two
// agree, so an edited, added or removed source file never runs old compiled code.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP_FILE = '.source-stamp';

export function sourceStamp(root) {
  const lines = [];
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const stat = statSync(path);
    lines.push(`${relative(root, path)}\t${stat.size}\t${stat.mtimeMs}`);
  }
  for (const file of ['scripts/build.mjs', 'bin/sourceStamp.mjs', 'bin/sourceGuard.mjs']) {
    const stat = statSync(join(root, file));
    lines.push(`${file}\t${stat.size}\t${stat.mtimeMs}`);
  }
  return lines.sort().join('\n');
}

/** Whether dist/ under `root` (a file URL or path of the package folder) was built from the sources as they are now. */
export function compiledIsCurrent(root) {
  const rootPath = root instanceof URL ? fileURLToPath(root) : root;
  try {
    return readFileSync(join(rootPath, 'dist', STAMP_FILE), 'utf8') === sourceStamp(rootPath);
  } catch {
    return false; // no build yet, or a source file vanished mid-walk
  }
}
