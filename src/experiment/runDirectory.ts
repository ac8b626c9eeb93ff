import { open } from 'node:fs/promises';

export async function ensureFileExists(path: string): Promise<void> {
  const handle = await open(path, 'a');
  await handle.close();
}
