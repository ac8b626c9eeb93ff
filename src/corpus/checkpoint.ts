import { z } from 'zod';
import { atomicWriteJson } from '../io/atomicWrite.js';
import { readJsonFile } from '../io/jsonText.js';

/**
 * Where an interrupted build stopped: written atomically after each batch of chunks is appended
 * and fsynced, so `chunks.jsonl` is never shorter than `chunksBytes` says.
 */
export const BuildCheckpointSchema = z.object({
  configHash: z.string(),
  itemsConsumed: z.number().int().nonnegative(),
  sourceBytesRead: z.number().int().nonnegative().default(0).describe('Source bytes read when the checkpoint was written (compressed bytes for .bz2); informative'),
  chunksBytes: z.number().int().nonnegative(),
  /** Bytes of `documents.jsonl` at the checkpoint (absent in checkpoints of builds from before it was written: those start over). */
  documentsBytes: z.number().int().nonnegative().optional(),
  chunksWritten: z.number().int().nonnegative(),
  documentsRead: z.number().int().nonnegative(),
  documentsSkipped: z.record(z.string(), z.number().int().nonnegative()),
  duplicateChunksDropped: z.number().int().nonnegative(),
  /** Each dropped duplicate's id and the line (in chunks.jsonl) of the chunk kept for its text; absent in checkpoints from before. */
  duplicates: z.array(z.tuple([z.string(), z.number().int().nonnegative()])).optional(),
  builderCounts: z.record(z.string(), z.number()),
  elapsedSeconds: z.number().nonnegative(),
  runs: z.number().int().positive(),
  startedAt: z.string(),
});
export type BuildCheckpoint = z.infer<typeof BuildCheckpointSchema>;

export async function readCheckpoint(path: string): Promise<BuildCheckpoint | undefined> {
  return readJsonFile(path, BuildCheckpointSchema, '; delete it to start over');
}

export async function writeCheckpoint(path: string, checkpoint: BuildCheckpoint): Promise<void> {
  await atomicWriteJson(path, checkpoint);
}
