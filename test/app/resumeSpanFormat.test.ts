import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunDirectory } from '../../src/app/openRun.js';
import { CHUNK_SPAN_FORMAT } from '../../src/chunking/chunker.js';
import type { HeldLock } from '../../src/runFiles/lockFile.js';

const OLD_RUN = join(import.meta.dirname, '..', 'data', 'old-run-demo-samples');

/** A run folder with the old demo run's config and manifest (with `spanFormat` when given), and one record line. */
function runFolder(record: Record<string, unknown>, spanFormat?: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'hisrag-span-format-'));
  copyFileSync(join(OLD_RUN, 'config.json'), join(dir, 'config.json'));
  const manifest = JSON.parse(readFileSync(join(OLD_RUN, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, ...(spanFormat ? { spanFormat } : {}) }));
  writeFileSync(join(dir, 'items.jsonl'), `${JSON.stringify(record)}\n`);
  return dir;
}

const open = async (dir: string) => {
  const locks: HeldLock[] = [];
  try {
    return await openRunDirectory({ resumeDir: dir }, () => {}, (lock) => locks.push(lock));
  } finally {
    for (const lock of locks) await lock.release();
  }
};

describe('resuming a run whose records hold spans of an earlier format', () => {
  it('refuses a run from before span format 2 whose records carry gold spans, naming the format', async () => {
    const dir = runFolder({ key: 'a', goldSpans: [{ doc: 'd', start: 0, end: 3 }] });
    await expect(open(dir)).rejects.toThrow(/span format 1 \(UTF-16 offsets, precision over merged ranges\).*format 2.*Start a new run/);
  });

  it('resumes a run from before whose records hold no spans, and one written with today\'s format', async () => {
    await expect(open(runFolder({ key: 'a' }))).resolves.toMatchObject({ previousManifest: { runId: 'demo-samples-20261204-035505' } });
    await expect(open(runFolder({ key: 'a', goldSpans: [] }, CHUNK_SPAN_FORMAT))).resolves.toMatchObject({ previousManifest: { spanFormat: CHUNK_SPAN_FORMAT } });
  });
});
