import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Embeddings } from '@langchain/core/embeddings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/runFiles/corpusFiles.js';
import { OpenAIEmbedder } from '../../src/embedding/openaiEmbedder.js';
import type { TextEmbedder } from '../../src/embedding/types.js';
import { type EmbedderIdentity, readIndexManifest } from '../../src/runFiles/indexManifest.js';
import { ServiceUnavailableError } from '../../src/errors.js';
import { buildIndex } from '../../src/index/buildIndex.js';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { openIndex } from '../../src/index/openIndex.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { writeTestCorpus } from './testCorpus.js';

/** 300 chunks: 38 requests of 8 texts. */
const CHUNKS: Chunk[] = Array.from({ length: 300 }, (_, i) => ({
  id: `replica:${i}`,
  docId: `doc-${Math.floor(i / 10)}`,
  title: `第${Math.floor(i / 10)}卷`,
  text: `第${i}段：${'秦漢魏晉南北朝隋唐宋元明清'.slice(i % 7, (i % 7) + 5)}${i * 7919}`,
  meta: {},
}));
const quiet = { silent: true };
const embeddingRequests = (server: OpenAIServer) => server.requests.filter((r) => r.path === '/v1/embeddings').length;

/** What an index holds, for comparing two builds: chunks, stored vectors and the graph file's bytes. */
function contents(dir: string): { chunks: unknown[]; vectors: unknown[]; graph: Buffer } {
  const store = ChunkStore.open(join(dir, 'chunks.sqlite'), { readonly: true });
  try {
    return { chunks: [...store.chunks()], vectors: [...store.vectors()], graph: readFileSync(join(dir, 'hnsw.bin')) };
  } finally {
    store.close();
  }
}

/**
 * A wrapper of another embedder counting the texts it is asked to embed; `remote: false` hides the inner
 * embedder's `remote`, so a build takes the classic way (embed and store everything, then the graph from the store).
 */
class Counted extends Embeddings implements TextEmbedder {
  documents = 0;
  constructor(
    private readonly inner: TextEmbedder,
    private readonly options: { remote: boolean } = { remote: true },
  ) {
    super({});
  }
  get remote() {
    return this.options.remote ? this.inner.remote : undefined;
  }
  embedDocuments(texts: string[]): Promise<number[][]> {
    this.documents += texts.length;
    return this.inner.embedDocuments(texts);
  }
  embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }
  identity(): Promise<EmbedderIdentity> {
    return this.inner.identity();
  }
  fingerprint(): Promise<string> {
    return this.inner.fingerprint!();
  }
  async dispose(): Promise<void> {}
}

describe('index builds over a pool of embedding replicas', () => {
  let root: string;
  let corpusDir: string;
  let reference: string;
  const servers: OpenAIServer[] = [];
  const spec = (baseURL: string | string[], extra: Record<string, unknown> = {}) => ({
    name: 'openai',
    baseURL,
    model: 'test-embedder',
    batchSize: 8,
    maxConcurrency: 2,
    retryBaseMs: 20,
    retryMaxMs: 200,
    ...extra,
  });
  const params = (baseURL: string | string[]) => {
    const { name: _, ...rest } = spec(baseURL);
    return rest;
  };
  const start = async (options: Parameters<typeof startOpenAIServer>[0] = {}) => {
    const server = await startOpenAIServer(options);
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-replicas-'));
    corpusDir = await writeTestCorpus(join(root, 'corpus'), CHUNKS);
    const single = await start();
    reference = join(root, 'one-endpoint');
    await buildIndex({ corpusDir, out: reference, retriever: 'hnsw', embedder: spec(single.url), M: 8, efConstruction: 40, progress: quiet });
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close().catch(() => {})));
    rmSync(root, { recursive: true, force: true });
  });

  it('spreads the requests over both replicas and gives the one-endpoint index, byte for byte', async () => {
    const [a, b] = [await start(), await start()];
    const out = join(root, 'two');
    const manifest = await buildIndex({ corpusDir, out, retriever: 'hnsw', embedder: spec([a.url, b.url]), M: 8, efConstruction: 40, progress: quiet });
    expect(manifest.counts.vectors).toBe(300);
    const [onA, onB] = [embeddingRequests(a), embeddingRequests(b)];
    // 38 batches of 8 (the dimension probe is one more request): each replica serves a fair share.
    expect(onA + onB).toBe(39);
    expect(Math.min(onA, onB)).toBeGreaterThanOrEqual(10);
    expect(contents(out)).toEqual(contents(reference));
    // The identity names the first replica only: the index is queried over it alone.
    expect(manifest.embedder!.identity.model).toBe(`${a.url}#test-embedder`);
    const index = await openIndex(out, { embedder: new OpenAIEmbedder(params(a.url)) });
    expect((await index.graph()).size).toBe(300);
    await index.close();
  });

  it('completes with the same index when one replica stops halfway through the build', async () => {
    let b: OpenAIServer | undefined;
    let served = 0;
    const a = await start();
    b = await start({
      embeddings: (texts) => {
        // The 10th request to b stops it: that request and those in flight fail, later ones are refused.
        if (++served === 10) void b!.close();
        return defaultVectors(texts);
      },
    });
    const out = join(root, 'one-stopped');
    const embedder = new OpenAIEmbedder(params([a.url, b.url]));
    const manifest = await buildIndex({ corpusDir, out, retriever: 'hnsw', embedderInstance: embedder, M: 8, efConstruction: 40, progress: quiet });
    expect(manifest.complete).toBe(true);
    expect(served).toBeGreaterThanOrEqual(10);
    expect(embeddingRequests(a)).toBeGreaterThan(20);
    // b's failures were seen (its last requests cut off or refused) and re-routed to a.
    const [, onB] = embedder.pool.replicas;
    expect(onB!.lastFailure).toMatch(/Connection error|terminated|ECONNREFUSED|socket|other side closed/i);
    expect(onB!.streak).toBeGreaterThan(0);
    expect(contents(out)).toEqual(contents(reference));
  });

  it('fails with one message naming every replica when all of them are down', async () => {
    const [a, b] = [await start(), await start()];
    const urls = [a.url, b.url];
    await Promise.all([a.close(), b.close()]);
    const error = await buildIndex({
      corpusDir, out: join(root, 'all-down'), retriever: 'hnsw', embedder: spec(urls, { maxRetries: 2, dimension: 8 }), progress: quiet,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toMatch(new RegExp(`every one of its 2 replicas is unavailable.*${escape(urls[0]!)} \\(.+\\); ${escape(urls[1]!)} \\(.+\\)`));
    // Nothing was stored, and the directory is an interrupted build, ready for --resume.
    expect(readIndexManifest(join(root, 'all-down'))?.complete).toBe(false);
  });

  it('builds the graph while embedding: the same graph as building it after storing, and resumable', async () => {
    const server = await start();
    const remote = new OpenAIEmbedder(params(server.url));
    expect(remote.remote).toEqual({ concurrency: 2 });
    // The classic build: embed and store everything, then the graph from the store.
    const classic = join(root, 'classic');
    await buildIndex({ corpusDir, out: classic, retriever: 'hnsw', embedderInstance: new Counted(remote, { remote: false }), M: 8, efConstruction: 40, progress: quiet });
    expect(contents(classic)).toEqual(contents(reference));

    // Interrupted after 100 chunks, then resumed: the graph starts with the stored vectors.
    const out = join(root, 'resumed');
    const controller = new AbortController();
    await expect(
      buildIndex({
        corpusDir, out, retriever: 'hnsw', embedderInstance: remote, M: 8, efConstruction: 40, progress: quiet, signal: controller.signal,
        onBatchStored: (stored) => {
          if (stored >= 100) controller.abort();
        },
      }),
    ).rejects.toThrow();
    const partial = ChunkStore.open(join(out, 'chunks.sqlite'), { readonly: true });
    const kept = partial.count();
    partial.close();
    expect(kept).toBeGreaterThanOrEqual(100);
    expect(kept).toBeLessThan(300);
    const resumed = new Counted(remote);
    await buildIndex({ corpusDir, out, retriever: 'hnsw', embedderInstance: resumed, M: 8, efConstruction: 40, progress: quiet, resume: true });
    // Only the chunks not stored were embedded.
    expect(resumed.documents).toBe(300 - kept);
    expect(contents(out)).toEqual(contents(reference));
  });
});

/** The test server's default vectors (sha256 of the text, 8-d, normalised). */
function defaultVectors(texts: string[]): number[][] {
  return texts.map((text) => {
    const digest = createHash('sha256').update(text).digest();
    const vector = Array.from({ length: 8 }, (_, i) => digest[i]! / 255 - 0.5);
    const norm = Math.hypot(...vector) || 1;
    return vector.map((v) => v / norm);
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
