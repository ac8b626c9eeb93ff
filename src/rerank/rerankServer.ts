import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { listenOn } from '../io/listen.js';
import { HttpError, readJson, reply } from '../embedding/embeddingServer.js';
import { sigmoid, type CrossEncoderReranker } from './crossEncoderReranker.js';

export interface RerankServerOptions {
  reranker: CrossEncoderReranker;
  /** The model id clients name in `/v1/rerank` requests; defaults to the reranker's model. */
  modelName?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  maxBodyBytes?: number;
  /** Most passages per request. */
  maxPassages?: number;
}

export interface RerankServer {
  /** Server root, e.g. `http://127.0.0.1:8080` (what the `remote` reranker takes as baseURL). */
  url: string;
  modelName: string;
  close(): Promise<void>;
}

const TeiRequestSchema = z.object({
  query: z.string(),
  texts: z.array(z.string()).min(1, { error: 'texts must be a non-empty array of strings' }),
  raw_scores: z.boolean().default(false),
  return_text: z.boolean().default(false),
  truncate: z.boolean().optional(),
  truncation_direction: z.string().optional(),
});

const V1RequestSchema = z.object({
  model: z.string().optional(),
  query: z.string(),
  documents: z.array(z.union([z.string(), z.object({ text: z.string() })])).min(1, { error: 'documents must be a non-empty array' }),
  top_n: z.number().int().positive().optional(),
  return_documents: z.boolean().default(false),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HttpError(400, `${issue.path.join('.') || 'body'}: ${issue.message}`, null, issue.path.join('.') || null);
  }
  return parsed.data;
}


/**
 * Serves a local cross-encoder over the two reranking protocols GPU servers speak:
 * `POST /rerank` as Text Embeddings Inference ({query, texts} → [{index, score}], best first;
 * `raw_scores` gives logits) and `POST /v1/rerank` as Jina/Cohere/vLLM/Infinity ({model, query,
 * documents, top_n} → {results: [{index, relevance_score}]}). Scores are the sigmoid of the
 * logit, as bge-reranker's; passages over the model's limit are cut, the query never.
 */
export async function startRerankServer(options: RerankServerOptions): Promise<RerankServer> {
  const { reranker, host = '127.0.0.1', port = 0, maxBodyBytes = 32 * 1024 * 1024, maxPassages = 1024 } = options;
  await reranker.load();
  const modelName = options.modelName ?? reranker.params.model;

  const ranked = async (query: string, passages: string[]) => {
    if (passages.length > maxPassages) throw new HttpError(413, `at most ${maxPassages} passages per request`);
    const logits = await reranker.logits(query, passages);
    return logits.map((logit, index) => ({ index, logit, score: sigmoid(logit) })).sort((a, b) => b.logit - a.logit || a.index - b.index);
  };

  async function tei(request: IncomingMessage): Promise<unknown> {
    const body = parse(TeiRequestSchema, await readJson(request, maxBodyBytes));
    return (await ranked(body.query, body.texts)).map(({ index, score, logit }) => ({
      index,
      score: body.raw_scores ? logit : score,
      ...(body.return_text ? { text: body.texts[index] } : {}),
    }));
  }

  async function v1(request: IncomingMessage): Promise<unknown> {
    const body = parse(V1RequestSchema, await readJson(request, maxBodyBytes));
    if (body.model !== undefined && body.model !== modelName) {
      throw new HttpError(404, `model "${body.model}" is not served here (serving "${modelName}")`, 'model_not_found', 'model');
    }
    const texts = body.documents.map((d) => (typeof d === 'string' ? d : d.text));
    const results = (await ranked(body.query, texts)).slice(0, body.top_n ?? texts.length);
    return {
      model: modelName,
      results: results.map(({ index, score }) => ({ index, relevance_score: score, ...(body.return_documents ? { document: { text: texts[index] } } : {}) })),
    };
  }

  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
      if (request.method === 'POST' && path === '/rerank') return reply(response, 200, await tei(request));
      if (request.method === 'POST' && path === '/v1/rerank') return reply(response, 200, await v1(request));
      if (request.method === 'GET' && path === '/v1/models') {
        return reply(response, 200, { object: 'list', data: [{ id: modelName, object: 'model', created: 0, owned_by: 'hisrag' }] });
      }
      if (request.method === 'GET' && path === '/info') return reply(response, 200, { model_id: modelName, model_type: { reranker: { id2label: { 0: 'LABEL_0' } } } });
      if (path === '/health' || path === '/v1/health') return reply(response, 200, { status: 'ok' });
      throw new HttpError(404, `no route ${request.method} ${path}`);
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      // TEI's error shape: {error, error_type}.
      reply(response, status, { error: error instanceof Error ? error.message : String(error), error_type: status >= 500 ? 'backend' : 'validation' });
    }
  });
  await listenOn(server, port, host);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    modelName,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
