import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOn } from '../io/listen.js';

/** What every local model server takes besides its model. */
export interface ModelServerOptions {
  /** The model id clients name; defaults to the model's own name. */
  modelName?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Largest accepted request body. */
  maxBodyBytes?: number;
}

export interface ModelServer {
  /** Where clients point: the API root (`http://127.0.0.1:8080/v1` for OpenAI clients, the server root for TEI ones). */
  url: string;
  modelName: string;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

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

/** A JSON route: the request in, the response body out (an HttpError sets the status). */
export type JsonRoute = (request: IncomingMessage) => Promise<unknown> | unknown;

/**
 * Serves JSON routes (`'POST /v1/embeddings'`, …) plus what every model server answers —
 * `GET /v1/models` (OpenAI's listing of the one model) and `/health` — on `host:port`; errors
 * become the protocol's error body with the HttpError's status (500 otherwise).
 */
export async function startJsonServer(options: {
  host: string;
  port: number;
  modelName: string;
  routes: Record<string, JsonRoute>;
  errorBody(error: unknown, status: number): unknown;
  /** Appended to the server root in `url`. */
  basePath: string;
}): Promise<ModelServer> {
  const { modelName, routes } = options;
  const builtIn: Record<string, JsonRoute> = {
    'GET /v1/models': () => ({ object: 'list', data: [{ id: modelName, object: 'model', created: 0, owned_by: 'hisrag' }] }),
  };
  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
      const route = routes[`${request.method} ${path}`] ?? builtIn[`${request.method} ${path}`];
      if (route) return reply(response, 200, await route(request));
      if (path === '/health' || path === '/v1/health') return reply(response, 200, { status: 'ok' });
      throw new HttpError(404, `no route ${request.method} ${path}`);
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      reply(response, status, options.errorBody(error, status));
    }
  });
  await listenOn(server, options.port, options.host);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${options.basePath}`,
    modelName,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
