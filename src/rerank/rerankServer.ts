import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { DEFAULT_MAX_BODY_BYTES, HttpError, readJson, startJsonServer, type ModelServer, type ModelServerOptions } from '../models/modelServer.js';
import { sigmoid, type CrossEncoderReranker } from './crossEncoderReranker.js';

export interface RerankServerOptions extends ModelServerOptions {
  reranker: CrossEncoderReranker;
  /** Most passages per request. */
  maxPassages?: number;
}

/** `url` is the server root, e.g. `http://127.0.0.1:8080` (what the `remote` reranker takes as baseURL). */
export type RerankServer = ModelServer;

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
  const { reranker, host = '127.0.0.1', port = 0, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxPassages = 1024 } = options;
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

  return startJsonServer({
    host,
    port,
    modelName,
    basePath: '',
    routes: {
      'POST /rerank': tei,
      'POST /v1/rerank': v1,
      'GET /info': () => ({ model_id: modelName, model_type: { reranker: { id2label: { 0: 'LABEL_0' } } } }),
    },
    // TEI's error shape: {error, error_type}.
    errorBody: (error, status) => ({ error: error instanceof Error ? error.message : String(error), error_type: status >= 500 ? 'backend' : 'validation' }),
  });
}
