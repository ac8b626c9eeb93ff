import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/runCli.js';
import { temporaryFixtureModel } from '../embedding/fixtureModelDir.js';

describe('hisrag serve embeddings', () => {
  let model: Awaited<ReturnType<typeof temporaryFixtureModel>>;
  beforeAll(async () => {
    model = await temporaryFixtureModel();
  });
  afterAll(async () => model?.remove());

  it('on a port that is already taken: exit 2 and one line naming the port, no stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const result = await runCli(['serve', 'embeddings', '--model', model.dir, '--port', String(port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--port: 127.0.0.1:${port} is already in use`);
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('stops on Ctrl-C with exit 130', async () => {
    let serving = false;
    const result = await runCli(['serve', 'embeddings', '--model', model.dir, '--port', '0'], {
      onSpawn: (child) => {
        child.stderr!.on('data', (d) => {
          if (!serving && String(d).includes('serving ')) {
            serving = true;
            child.kill('SIGINT');
          }
        });
      },
    });
    expect(serving).toBe(true);
    expect(result.code).toBe(130);
    expect(result.stderr).not.toContain('internal error');
  }, 60_000);
});
