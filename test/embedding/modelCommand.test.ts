import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerModelCommands } from '../../src/cli/commands/model.js';
import { InputError } from '../../src/errors.js';

function program(): Command {
  const root = new Command('hisrag').exitOverride();
  registerModelCommands(root);
  for (const command of root.commands) command.exitOverride();
  return root;
}

describe('hisrag model fixture', () => {
  let dir: string;
  beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'hisrag-model-cli-'))));
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('writes a model of the requested dimension and seed', async () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    await program().parseAsync(['node', 'hisrag', 'model', 'fixture', '--out', join(dir, 'm'), '--dim', '8', '--seed', '3'], { from: 'node' });
    stdout.mockRestore();
    const config = JSON.parse(await readFile(join(dir, 'm', 'config.json'), 'utf8'));
    expect(config).toMatchObject({ hidden_size: 8, hisrag_fixture: { kind: 'mean', seed: 3 } });
  });

  it('rejects a non-numeric --dim as bad input', async () => {
    await expect(program().parseAsync(['node', 'hisrag', 'model', 'fixture', '--out', dir, '--dim', 'x'])).rejects.toThrow(InputError);
  });
});
