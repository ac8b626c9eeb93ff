import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateClipFixture } from '../../src/models/fixture/clipFixture.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';
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

  it('serves page images too when the model is a CLIP-family dual encoder (chat-style messages with an image_url part)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-serve-clip-'));
    await generateClipFixture({ outDir: dir, seed: 5, dim: 16 });
    const page = join(REPO_ROOT, 'corpora/sources/demo-longhisdoc/LongHisDoc_IMG/90001/page_1.jpg');
    const url = `data:image/jpeg;base64,${readFileSync(page).toString('base64')}`;
    let vectors: { text?: number; image?: number } = {};
    const result = await runCli(['serve', 'embeddings', '--model', dir, '--port', '0'], {
      onSpawn: (child) => {
        let asked = false;
        child.stderr!.on('data', async (d) => {
          const served = /serving .*page images too.* at (http:\/\/\S+)/.exec(String(d));
          if (!served || asked) return;
          asked = true;
          const post = (body: unknown) => fetch(`${served[1]}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: dir, encoding_format: 'float', ...(body as object) }) }).then((r) => r.json() as Promise<{ data: { embedding: number[] }[] }>);
          const image = await post({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] });
          const text = await post({ input: ['红色'] });
          vectors = { image: image.data[0]!.embedding.length, text: text.data[0]!.embedding.length };
          child.kill('SIGINT');
        });
      },
    });
    expect(result.code).toBe(130);
    expect(vectors).toEqual({ image: 16, text: 16 });
  }, 60_000);
});
