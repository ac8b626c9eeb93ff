/**
 * A small RAG service on hisrag's library API, served over HTTP: the shape of a team's own
 * deployed system that `hisrag run` evaluates through the `http` method. POST /ask with
 * `{ query, id?, doc_id? }` retrieves pages (within the book `doc_id` names) and answers from
 * them; the reply is FastAPI-style `{ data: { answer, sources: [{ id, doc_id, page, title,
 * content, score }] } }`. Offline it answers with hisrag's extractive stand-in; a real service would call
 * its LLM here.
 *
 *   npx tsx examples/rag-service.ts --index indexes/demo-longhisdoc-pages-bm25 --port 8765
 *
 * `experiments/demo-external.yaml` starts it itself (the http method's `serve:`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createRetriever, generators, strategies } from 'hisrag';

export interface RagServiceOptions {
  /** A hisrag index (built by `hisrag index build` or a config's `prepare:`). */
  index: string;
  /** Retriever kind over the index: `bm25`, `exact`, `hnsw`. */
  retriever?: string;
  /** Pages per answer. */
  k?: number;
  /** The extractive stand-in's overlap threshold (short questions share few character bigrams). */
  minOverlap?: number;
  host?: string;
  port?: number;
}

export interface RagService {
  url: string;
  close(): Promise<void>;
  /** Lets the process exit while the service is still listening (a run that started it). */
  unref(): void;
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

export async function startRagService(options: RagServiceOptions): Promise<RagService> {
  const retriever = await createRetriever({ name: options.retriever ?? 'bm25', index: options.index });
  const generator = await generators.create({ name: 'extractive', minOverlap: options.minOverlap ?? 1 }, undefined);
  const prompt = await strategies.create({ name: 'rag' }, undefined);
  const k = options.k ?? 5;

  const ask = async (body: Record<string, unknown>) => {
    const query = typeof body.query === 'string' ? body.query.trim() : '';
    if (!query) return { status: 422, value: { detail: [{ loc: ['body', 'query'], msg: 'field required' }] } };
    const docId = typeof body.doc_id === 'string' ? body.doc_id : undefined;
    const hits = await retriever.retrieve({ text: query, ...(docId ? { docId } : {}) }, k);
    // The service knows only the question: it prompts as for a free-text answer.
    const built = prompt.build({ item: { id: String(body.id ?? 'q'), benchmark: 'service', kind: 'reference', question: query, category: 'all', meta: {} }, context: hits });
    const answer = await generator.generate(built.messages);
    return {
      status: 200,
      value: {
        data: {
          answer: answer.text,
          sources: hits.map((hit) => ({ id: hit.id, doc_id: hit.docId, page: hit.meta.page, title: hit.title, content: hit.text, score: hit.score })),
        },
      },
    };
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/health') return send(res, 200, { status: 'ok' });
      if (req.method !== 'POST' || path !== '/ask') return send(res, 404, { detail: 'Not Found' });
      const { status, value } = await ask(await readJson(req));
      send(res, status, value);
    })().catch((error: unknown) => send(res, 500, { detail: String(error) }));
  });
  // Accepted connections must not hold the process either once the work is done.
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8765, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    unref: () => server.unref(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await retriever.close();
    },
  };
}

// As a script: serve until Ctrl-C.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const index = arg('index') ?? 'indexes/demo-longhisdoc-pages-bm25';
  const service = await startRagService({ index, retriever: arg('retriever'), k: arg('k') ? Number(arg('k')) : undefined, port: arg('port') ? Number(arg('port')) : undefined });
  console.log(`RAG service over ${index} at ${service.url}/ask (POST {"query": "…", "doc_id": "…"}); Ctrl-C stops it`);
  process.once('SIGINT', () => void service.close().then(() => process.exit(0)));
}
