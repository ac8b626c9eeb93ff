import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { DEFAULT_MAX_BODY_BYTES, HttpError, readJson, startJsonServer, type ModelServer, type ModelServerOptions } from '../models/modelServer.js';
import type { TextEmbedder } from './types.js';

export interface EmbeddingServerOptions extends ModelServerOptions {
  /** Embeds the inputs as documents (no query prefix: the API cannot tell queries apart). */
  embedder: TextEmbedder & { countTokens?(texts: string[]): Promise<number[]> };
  /** Most inputs per request. */
  maxInputs?: number;
}

/** `url` is the API root, e.g. `http://127.0.0.1:8080/v1` (what an OpenAI client takes as baseURL). */
export type EmbeddingServer = ModelServer;

const EmbeddingRequestSchema = z.object({
  input: z.union([z.string(), z.array(z.string()).min(1)], {
    error: 'input must be a string or a non-empty array of strings (token arrays are not supported)',
  }),
  model: z.string().optional(),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  user: z.string().optional(),
  dimensions: z.number().int().positive().optional(),
});

/** base64 of little-endian float32 — what OpenAI's SDK decodes when it asks for `base64`. */
export function encodeBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}

/**
 * An OpenAI-compatible embeddings server over a local embedder: `POST /v1/embeddings` (string
 * or array input, `encoding_format` float or base64, token usage) and `GET /v1/models`.
 */
export async function startEmbeddingServer(options: EmbeddingServerOptions): Promise<EmbeddingServer> {
  const { embedder, host = '127.0.0.1', port = 0, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxInputs = 2048 } = options;
  const identity = await embedder.identity();
  const modelName = options.modelName ?? identity.model;

  async function embeddings(request: IncomingMessage): Promise<unknown> {
    const parsed = EmbeddingRequestSchema.safeParse(await readJson(request, maxBodyBytes));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpError(400, issue.message, null, issue.path.join('.') || null);
    }
    const body = parsed.data;
    if (body.model !== undefined && body.model !== modelName) {
      throw new HttpError(404, `model "${body.model}" is not served here (serving "${modelName}")`, 'model_not_found', 'model');
    }
    if (body.dimensions !== undefined && body.dimensions !== identity.dimension) {
      throw new HttpError(400, `dimensions: this model gives ${identity.dimension}`, null, 'dimensions');
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (inputs.length > maxInputs) throw new HttpError(400, `at most ${maxInputs} inputs per request`, null, 'input');
    const [vectors, tokens] = await Promise.all([embedder.embedDocuments(inputs), embedder.countTokens?.(inputs)]);
    const promptTokens = tokens ? tokens.reduce((a, b) => a + b, 0) : 0;
    return {
      object: 'list',
      model: modelName,
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? encodeBase64Float32(vector) : vector,
      })),
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
  }

  return startJsonServer({
    host,
    port,
    modelName,
    basePath: '/v1',
    routes: { 'POST /v1/embeddings': embeddings },
    errorBody: (error, status) => ({
      error: {
        message: error instanceof Error ? error.message : String(error),
        type: status >= 500 ? 'server_error' : 'invalid_request_error',
        param: error instanceof HttpError ? error.param : null,
        code: error instanceof HttpError ? error.code : null,
      },
    }),
  });
}
