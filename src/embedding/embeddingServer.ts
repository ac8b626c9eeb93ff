import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOn } from '../io/listen.js';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { TextEmbedder } from './types.js';

export interface EmbeddingServerOptions {
  /** Embeds the inputs as documents (no query prefix: the API cannot tell queries apart). */
  embedder: TextEmbedder & { countTokens?(texts: string[]): Promise<number[]> };
  /** The model id clients name; defaults to the embedder identity's model. */
  modelName?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Largest accepted request body. */
  maxBodyBytes?: number;
  /** Most inputs per request. */
  maxInputs?: number;
}

export interface EmbeddingServer {
  /** API root, e.g. `http://127.0.0.1:8080/v1` (what an OpenAI client takes as baseURL). */
  url: string;
  modelName: string;
  close(): Promise<void>;
}

const EmbeddingRequestSchema = z.object({
  input: z.union([z.string(), z.array(z.string()).min(1)], {
    error: 'input must be a string or a non-empty array of strings (token arrays are not supported)',
  }),
  model: z.string().optional(),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  user: z.string().optional(),
  dimensions: z.number().int().positive().optional(),
});

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** base64 of little-endian float32 — what OpenAI's SDK decodes when it asks for `base64`. */
export function encodeBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}

export async function readJson(request: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

export function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/**
 * An OpenAI-compatible embeddings server over a local embedder: `POST /v1/embeddings` (string
 * or array input, `encoding_format` float or base64, token usage) and `GET /v1/models`.
 */
export async function startEmbeddingServer(options: EmbeddingServerOptions): Promise<EmbeddingServer> {
  const { embedder, host = '127.0.0.1', port = 0, maxBodyBytes = 32 * 1024 * 1024, maxInputs = 2048 } = options;
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

  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
      if (path === '/v1/models' && request.method === 'GET') {
        return reply(response, 200, { object: 'list', data: [{ id: modelName, object: 'model', created: 0, owned_by: 'hisrag' }] });
      }
      if (path === '/v1/embeddings' && request.method === 'POST') return reply(response, 200, await embeddings(request));
      if (path === '/health' || path === '/v1/health') return reply(response, 200, { status: 'ok' });
      throw new HttpError(404, `no route ${request.method} ${path}`);
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      reply(response, status, {
        error: {
          message,
          type: status >= 500 ? 'server_error' : 'invalid_request_error',
          param: error instanceof HttpError ? error.param : null,
          code: error instanceof HttpError ? error.code : null,
        },
      });
    }
  });
  await listenOn(server, port, host);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/v1`,
    modelName,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
